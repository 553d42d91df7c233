-- A public corpus's records read straight from its `records` array, copied to a file of
-- its own by the loader (s8f_duck/load.py) when the corpus ends with that array, as every
-- corpus freeze writes does: one row each, record = 0-based position, every field still
-- a JSON value. This streams where public_document parses the whole corpus as one value.
-- DuckDB refuses a record that is not an object or that repeats a key; the loader then
-- reads the file whole (public_document.sql, or Go's decoding).
CREATE OR REPLACE TABLE public_records AS
SELECT ordinality - 1 AS record, 'OBJECT' AS kind, * EXCLUDE (ordinality)
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'id': 'JSON', 'split': 'JSON', 'number': 'JSON', 'title': 'JSON', 'body': 'JSON', 'created_at': 'JSON',
        'updated_at': 'JSON', 'url': 'JSON', 'state': 'JSON', 'labels': 'JSON', 'closed_at': 'JSON',
        'title_sha256': 'JSON', 'body_sha256': 'JSON'
    },
    maximum_object_size = 268435456
) WITH ORDINALITY;
