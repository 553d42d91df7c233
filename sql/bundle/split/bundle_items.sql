-- An answer bundle's or submission's answers read straight from its `answers` array,
-- copied to a file of its own by the loader (s8f_duck/load.py) when the document is laid
-- out as freeze writes it: one row each, pos = 0-based position, every field still a
-- JSON value. This streams where bundle_document parses the whole document as one value.
-- (A null answer reads as a row of nulls, like {}: both are Go's zero value.) DuckDB
-- refuses an answer that is not an object or that repeats a key; the loader then reads
-- the file whole (bundle_document.sql, or Go's decoding).
CREATE OR REPLACE TABLE bundle_items AS
SELECT ordinality - 1 AS pos, 'OBJECT' AS kind, * EXCLUDE (ordinality)
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'id': 'JSON', 'split': 'JSON', 'state': 'JSON', 'labels': 'JSON', 'references': 'JSON',
        'duplicate_targets': 'JSON', 'scope_contradictions': 'JSON'
    },
    maximum_object_size = 268435456,
    case_insensitive_keys = true
) WITH ORDINALITY;
