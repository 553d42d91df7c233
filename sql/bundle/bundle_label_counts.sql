-- SPEC §6/§7: aggregates.label_counts as rows; of a repeated key the last counts (as in Go),
-- a null count is 0.
CREATE OR REPLACE TABLE bundle_label_counts AS
SELECT item.key AS label, coalesce(CAST(item.value->>'$' AS BIGINT), 0) AS count
FROM bundle_document AS d, json_each(d.aggregates->'label_counts') AS item
QUALIFY row_number() OVER (PARTITION BY item.key ORDER BY item.id DESC) = 1
ORDER BY label;
