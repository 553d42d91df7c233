-- SPEC §6/§7: aggregates.most_recently_updated_issue_ids as (rank, id) rows, rank 1 first.
CREATE OR REPLACE TABLE bundle_most_recently_updated_issue_ids AS
SELECT TRY_CAST(item.key AS BIGINT) + 1 AS rank, coalesce(item.value->>'$', '') AS id
FROM bundle_document AS d, json_each(d.aggregates->'most_recently_updated_issue_ids') AS item
ORDER BY rank;
