-- docs/format.md §6/§7: each submission's aggregates.most_recently_updated_issue_ids as (rank, id) rows, rank 1 first
-- (bundle/bundle_most_recently_updated_issue_ids.sql).
CREATE OR REPLACE TABLE submitted_most_recently_updated_issue_ids AS
SELECT submission, unnest(range(1, len(most_recently_updated_issue_ids) + 1)) AS rank, unnest(most_recently_updated_issue_ids) AS id
FROM submitted_documents
ORDER BY submission, rank;
