-- An answer bundle's or submission's answers, one JSON value per row; pos = 0-based
-- position. (unnest, not json_each: json_each is slow on a large array.)
CREATE OR REPLACE TABLE bundle_items AS
WITH list AS (
    SELECT CASE WHEN json_is_array(j->'answers') THEN CAST(j->'answers' AS JSON[]) END AS items
    FROM document_json
)
SELECT generate_subscripts(items, 1) - 1 AS pos, unnest(items) AS a FROM list;
