-- docs/format.md §6/§7: an answer bundle or submission read by DuckDB: its top-level fields and its
-- answers, every field still a JSON value so that bundle_problems can name wrong types.
-- DuckDB refuses an answer that is not an object and an object with a repeated key (Go
-- keeps the last value); the loader then decodes the bytes as Go does and uses
-- decoded/bundle_document.sql.
CREATE OR REPLACE TEMP TABLE bundle_document AS
SELECT
    'OBJECT' AS kind, schema, corpus_sha256,
    CASE WHEN answers IS NULL THEN 'NULL' ELSE 'ARRAY' END AS answers_kind,
    list_transform(answers, lambda a: struct_insert(a, kind := CASE WHEN a IS NULL THEN 'NULL' ELSE 'OBJECT' END))
        AS answers,
    aggregates
FROM read_json(
    getvariable('input_path'),
    format = 'unstructured',
    records = true,
    columns = {
        'schema': 'JSON', 'corpus_sha256': 'JSON', 'aggregates': 'JSON',
        'answers': 'STRUCT(id JSON, split JSON, state JSON, labels JSON, "references" JSON,
                           duplicate_targets JSON, scope_contradictions JSON)[]'
    },
    maximum_object_size = getvariable('max_object_size'),
    case_insensitive_keys = true
);
