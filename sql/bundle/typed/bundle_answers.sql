-- bundle_answers (as bundle/bundle_answers.sql makes it, without its problems) read straight
-- from the answers array's part into the reference's types, when the loader's typed check
-- (s8f_duck/typed_check.py) found every value of its type and every key a field's exact
-- name: then there is nothing for bundle_problems to find, and nothing to type twice.
-- pos = 0-based position; null is the zero value: '' for strings, [] for lists (a null
-- answer reads as a row of nulls, like {}; the check refuses a null list element). DuckDB's
-- reader keeps buffers of about twice maximum_object_size: 16 MB, not 256, halves the peak
-- memory of a 1,000,000-answer read (515 MB to 253 MB); an answer larger than that is
-- refused, and the loader reads the document the checked way.
CREATE OR REPLACE TABLE bundle_answers AS
SELECT
    ordinality - 1 AS pos,
    coalesce(id, '') AS id,
    coalesce(split, '') AS split,
    coalesce(state, '') AS state,
    coalesce(labels, []) AS labels,
    coalesce("references", []) AS "references",
    coalesce(duplicate_targets, []) AS duplicate_targets,
    coalesce(scope_contradictions, []) AS scope_contradictions
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'id': 'VARCHAR', 'split': 'VARCHAR', 'state': 'VARCHAR', 'labels': 'VARCHAR[]', 'references': 'BIGINT[]',
        'duplicate_targets': 'BIGINT[]', 'scope_contradictions': 'VARCHAR[]'
    },
    maximum_object_size = 16777216,
    case_insensitive_keys = true
) WITH ORDINALITY;
