-- docs/format.md §6: a public corpus read by DuckDB: its top-level fields and its records, every
-- field still a JSON value so that public_problems can name wrong types. DuckDB refuses a
-- record that is not an object and an object with a repeated key (Go keeps the last
-- value); the loader then decodes the bytes as Go does and uses decoded/public_document.sql.
CREATE OR REPLACE TEMP TABLE public_document AS
SELECT
    'OBJECT' AS kind, schema, source, frozen_at,
    CASE WHEN records IS NULL THEN 'NULL' ELSE 'ARRAY' END AS records_kind,
    list_transform(records, lambda r: struct_insert(r, kind := CASE WHEN r IS NULL THEN 'NULL' ELSE 'OBJECT' END))
        AS records
FROM read_json(
    getvariable('input_path'),
    format = 'unstructured',
    records = true,
    columns = {
        'schema': 'JSON', 'source': 'JSON', 'frozen_at': 'JSON',
        'records': 'STRUCT(id JSON, split JSON, number JSON, title JSON, body JSON, created_at JSON, updated_at JSON,
                           url JSON, state JSON, labels JSON, closed_at JSON, title_sha256 JSON, body_sha256 JSON)[]'
    },
    maximum_object_size = getvariable('max_object_size'),
    case_insensitive_keys = true
);
