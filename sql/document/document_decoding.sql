-- Whether document_json needs Go's decoding: not exactly one value, or an object with a
-- repeated key where Go keeps the last value (DuckDB's -> returns the first). Maps are
-- read with json_each, last key winning, so only these objects matter.
CREATE OR REPLACE TABLE document_decoding AS
WITH items AS (
    SELECT unnest(CASE WHEN json_is_array(j->'answers') THEN CAST(j->'answers' AS JSON[]) END) AS value
    FROM document_json
    UNION ALL
    SELECT unnest(CASE WHEN json_is_array(j->'records') THEN CAST(j->'records' AS JSON[]) END)
    FROM document_json
)
SELECT
    (SELECT count(*) FROM document_json) <> 1
    OR (SELECT bool_or(json_has_duplicate_keys(j) OR json_has_duplicate_keys(j->'aggregates')) FROM document_json)
    OR coalesce((SELECT bool_or(json_has_duplicate_keys(value)) FROM items), false) AS needs_go_decoding;
