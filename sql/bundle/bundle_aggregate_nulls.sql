-- docs/format.md §8: which aggregates the document leaves out or gives as null. The original
-- compares aggregates by their JSON encoding, where a missing map or list (Go's nil: `null`)
-- is not an empty one (`{}`, `[]`): grade/aggregate_errors.sql counts that difference.
CREATE OR REPLACE TABLE bundle_aggregate_nulls AS
SELECT name AS aggregate, coalesce(json_type(aggregates, '$.' || name) = 'NULL', true) AS missing
FROM bundle_document, (VALUES ('state_counts'), ('label_counts'), ('newest_issue_ids'),
    ('most_recently_updated_issue_ids')) AS names(name);
