-- docs/format.md §6: public_document from document_json (j), the file as Go decoded it (when
-- DuckDB's reader refused it; see s8f_duck/load.py).
CREATE OR REPLACE TEMP TABLE public_document AS
SELECT
    json_type(j) AS kind, j->'schema' AS schema, j->'source' AS source, j->'frozen_at' AS frozen_at,
    coalesce(json_type(j->'records'), 'NULL') AS records_kind,
    CASE WHEN json_is_array(j->'records') THEN list_transform(CAST(j->'records' AS JSON[]), lambda r: {
        'id': r->'id', 'split': r->'split', 'number': r->'number', 'title': r->'title', 'body': r->'body',
        'created_at': r->'created_at', 'updated_at': r->'updated_at', 'url': r->'url', 'state': r->'state',
        'labels': r->'labels', 'closed_at': r->'closed_at', 'title_sha256': r->'title_sha256',
        'body_sha256': r->'body_sha256', 'kind': json_type(r)
    }) END AS records
FROM document_json;
