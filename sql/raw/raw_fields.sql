-- SPEC §1: the dump read by DuckDB, one row per array element (record = 0-based position),
-- each field still a JSON value so that raw_problems can name wrong types. DuckDB refuses
-- an element that is not an object and an object with a repeated key (Go would keep the
-- last value); the loader then decodes the bytes as Go does and uses decoded/raw_fields.sql.
CREATE OR REPLACE TABLE raw_fields AS
SELECT
    ordinality - 1 AS record, 'OBJECT' AS kind, number, title, body, state, url, labels,
    "createdAt" AS created_at, "updatedAt" AS updated_at, "closedAt" AS closed_at
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'number': 'JSON', 'title': 'JSON', 'body': 'JSON', 'state': 'JSON', 'url': 'JSON', 'labels': 'JSON',
        'createdAt': 'JSON', 'updatedAt': 'JSON', 'closedAt': 'JSON'
    },
    maximum_object_size = 268435456
) WITH ORDINALITY;
