-- docs/format.md §6/§7: each submission's aggregates.newest_issue_ids as (rank, id) rows, rank 1 first
-- (bundle/bundle_newest_issue_ids.sql).
CREATE OR REPLACE TABLE submitted_newest_issue_ids AS
SELECT submission, unnest(range(1, len(newest_issue_ids) + 1)) AS rank, unnest(newest_issue_ids) AS id
FROM submitted_documents
ORDER BY submission, rank;
