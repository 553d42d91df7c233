-- SPEC §1: raw_fields.sql for a dump cut into several files (split.array_parts), read
-- on several cores: without record positions, since numbering the rows (WITH
-- ORDINALITY) would make DuckDB read them on one. Records need positions only to name
-- them in a problem; when raw_problems finds one, the loader reads the dump again through
-- raw_fields.sql.
CREATE OR REPLACE VIEW raw_fields AS
SELECT
    NULL::BIGINT AS record, 'OBJECT' AS kind, number, title, body, state, url, CAST(labels AS JSON) AS labels,
    "createdAt" AS created_at, "updatedAt" AS updated_at, "closedAt" AS closed_at
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'number': 'JSON', 'title': 'JSON', 'body': 'JSON', 'state': 'JSON', 'url': 'JSON',
        'labels': 'STRUCT(name JSON)[]', 'createdAt': 'JSON', 'updatedAt': 'JSON', 'closedAt': 'JSON'
    },
    maximum_object_size = 268435456
);
