-- A public corpus's records, one JSON value per row; record = 0-based position.
-- (unnest, not json_each: json_each is slow on a large array.)
CREATE OR REPLACE TABLE public_records AS
WITH list AS (
    SELECT CASE WHEN json_is_array(j->'records') THEN CAST(j->'records' AS JSON[]) END AS items
    FROM document_json
)
SELECT generate_subscripts(items, 1) - 1 AS record, unnest(items) AS r FROM list;
