-- docs/format.md §6/§7: aggregates.newest_issue_ids as (rank, id) rows, rank 1 first.
-- json_each of a scalar subquery: joined laterally to bundle_document instead, DuckDB copies
-- the whole value for each of its entries (100,000 labels: out of memory with 3 GB).
CREATE OR REPLACE TABLE bundle_newest_issue_ids AS
SELECT TRY_CAST(item.key AS BIGINT) + 1 AS rank, coalesce(item.value->>'$', '') AS id
FROM json_each((SELECT aggregates->'newest_issue_ids' FROM bundle_document)) AS item
ORDER BY rank;
