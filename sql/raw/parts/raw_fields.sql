-- docs/format.md §1: raw_fields.sql for the first reading of a dump, as one file or cut into
-- several (split.array_parts) that are read on several cores: without record positions,
-- since numbering the rows (WITH ORDINALITY) would make DuckDB read them on one. Records
-- need positions only to name them in a problem; when raw_problems finds one, the loader
-- reads the dump again through raw_fields.sql. Keys as in raw_fields.sql (folded_key). The title and body, most of the bytes,
-- are read as strings (DuckDB then unescapes them once, as it parses); a value that
-- DuckDB turned into a string from another JSON type cannot always be told from a
-- string, so text_kind leaves its kind unknown, which raw_issues reports as a problem,
-- so that the dump is read again whole.
CREATE OR REPLACE VIEW raw_fields AS
SELECT
    NULL::BIGINT AS record, 'OBJECT' AS kind, number,
    title, text_kind(title) AS title_kind, body, text_kind(body) AS body_kind,
    state, url, CAST(labels AS JSON) AS labels,
    "createdAt" AS created_at, "updatedAt" AS updated_at, "closedAt" AS closed_at,
    coalesce("ſtate", "labelſ", "cloſedAt") IS NOT NULL AS folded_key
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'number': 'JSON', 'title': 'VARCHAR', 'body': 'VARCHAR', 'state': 'JSON', 'url': 'JSON',
        'labels': 'STRUCT(name JSON)[]', 'createdAt': 'JSON', 'updatedAt': 'JSON', 'closedAt': 'JSON',
        'ſtate': 'JSON', 'labelſ': 'JSON', 'cloſedAt': 'JSON'
    },
    maximum_object_size = 268435456,
    case_insensitive_keys = true
);
