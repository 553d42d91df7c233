-- docs/format.md §1: raw_fields from raw_values (record, j), the elements as Go decoded them (when
-- DuckDB's reader refused the file; see s8f_duck/load.py).
CREATE OR REPLACE TABLE raw_fields AS
SELECT
    record, json_type(j) AS kind, j->'number' AS number, j->>'title' AS title, json_kind(j->'title') AS title_kind,
    j->>'body' AS body, json_kind(j->'body') AS body_kind,
    j->'state' AS state, j->'url' AS url, j->'labels' AS labels,
    j->'createdAt' AS created_at, j->'updatedAt' AS updated_at, j->'closedAt' AS closed_at,
    false AS folded_key  -- (gojson matched the keys as Go does)
FROM raw_values;
