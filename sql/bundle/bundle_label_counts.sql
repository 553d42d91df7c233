-- docs/format.md §6/§7: aggregates.label_counts as rows; of a repeated key the last counts (as in Go),
-- a null count is 0.
-- json_each of a scalar subquery: joined laterally to bundle_document instead, DuckDB copies
-- the whole value for each of its entries (100,000 labels: out of memory with 3 GB).
CREATE OR REPLACE TABLE bundle_label_counts AS
SELECT item.key AS label, coalesce(CAST(item.value->>'$' AS BIGINT), 0) AS count
FROM json_each((SELECT aggregates->'label_counts' FROM bundle_document)) AS item
QUALIFY row_number() OVER (PARTITION BY item.key ORDER BY item.id DESC) = 1
ORDER BY label;
