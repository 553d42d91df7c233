-- docs/format.md §8: which aggregates each submission leaves out or gives as null
-- (bundle/bundle_aggregate_nulls.sql).
CREATE OR REPLACE TABLE submitted_aggregate_nulls AS
SELECT submission, unnest(['state_counts', 'label_counts', 'newest_issue_ids', 'most_recently_updated_issue_ids'])
    AS aggregate,
    unnest([state_counts_missing, label_counts_missing, newest_issue_ids_missing,
        most_recently_updated_issue_ids_missing]) AS missing
FROM submitted_documents;
