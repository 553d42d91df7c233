-- docs/format.md §1: the dump as DuckDB reads it, one row per array element (record = 0-based
-- position), each field still a JSON value so that raw_problems can name wrong types
-- (the texts as strings, beside the JSON type of their values).
-- A view: raw_issues reads the file through it once, checking and typing as it goes.
-- Keys match in any ASCII letter case, as Go's decoder matches them; folded_key tells a
-- record with a key that Go's Unicode folding also takes for a field (ſ for s: the fields'
-- other spellings are these three; ı and İ fold to no ASCII letter, so `tıtle` is no
-- title), which the loader then reads as Go decodes it.
-- DuckDB refuses an element that is not an object
-- and an object (issue or label) with a repeated key, where Go would keep the last
-- value; the loader then decodes the bytes as Go does and uses decoded/raw_fields.sql.
CREATE OR REPLACE VIEW raw_fields AS
SELECT
    ordinality - 1 AS record, 'OBJECT' AS kind, number,
    title->>'$' AS title, json_kind(title) AS title_kind, body->>'$' AS body, json_kind(body) AS body_kind,
    state, url, CAST(labels AS JSON) AS labels,
    "createdAt" AS created_at, "updatedAt" AS updated_at, "closedAt" AS closed_at,
    coalesce("ſtate", "labelſ", "cloſedAt") IS NOT NULL AS folded_key
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'number': 'JSON', 'title': 'JSON', 'body': 'JSON', 'state': 'JSON', 'url': 'JSON',
        'labels': 'STRUCT(name JSON)[]', 'createdAt': 'JSON', 'updatedAt': 'JSON', 'closedAt': 'JSON',
        'ſtate': 'JSON', 'labelſ': 'JSON', 'cloſedAt': 'JSON'
    },
    maximum_object_size = 268435456,
    case_insensitive_keys = true
) WITH ORDINALITY;
