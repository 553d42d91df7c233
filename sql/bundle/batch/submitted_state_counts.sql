-- docs/format.md §6/§7: each submission's aggregates.state_counts as rows (bundle/bundle_state_counts.sql).
CREATE OR REPLACE TABLE submitted_state_counts AS
SELECT submission, entry.key AS state, entry.count
FROM (SELECT submission, unnest(state_counts) AS entry FROM submitted_documents)
ORDER BY submission, state;
