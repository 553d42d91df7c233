-- docs/format.md §6/§7: bundle_document from document_json (j), the file as Go decoded it (when
-- DuckDB's reader refused it; see s8f_duck/load.py).
CREATE OR REPLACE TEMP TABLE bundle_document AS
SELECT
    json_type(j) AS kind, j->'schema' AS schema, j->'corpus_sha256' AS corpus_sha256,
    coalesce(json_type(j->'answers'), 'NULL') AS answers_kind,
    CASE WHEN json_is_array(j->'answers') THEN list_transform(CAST(j->'answers' AS JSON[]), lambda a: {
        'id': a->'id', 'split': a->'split', 'state': a->'state', 'labels': a->'labels',
        'references': a->'references', 'duplicate_targets': a->'duplicate_targets',
        'scope_contradictions': a->'scope_contradictions', 'kind': coalesce(json_type(a), 'NULL')
    }) END AS answers,
    j->'aggregates' AS aggregates
FROM document_json;
