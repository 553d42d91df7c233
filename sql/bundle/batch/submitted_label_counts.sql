-- docs/format.md §6/§7: each submission's aggregates.label_counts as rows (bundle/bundle_label_counts.sql).
CREATE OR REPLACE TABLE submitted_label_counts AS
SELECT submission, entry.key AS label, entry.count
FROM (SELECT submission, unnest(label_counts) AS entry FROM submitted_documents)
ORDER BY submission, label;
