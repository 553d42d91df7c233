-- docs/format.md §8: the differing entries of each aggregate (a key whose count differs or that
-- only one side has; a rank whose id differs or that only one side has). The aggregates
-- are corpus-wide, so only the held-out (test) grade compares them: a tune or train grade
-- reads none of the gold aggregates.
CREATE OR REPLACE TABLE aggregate_errors AS
SELECT * FROM (
SELECT 'state_counts' AS aggregate, coalesce(g.state, s.state) AS entry, g.count AS gold, s.count AS submitted
FROM state_counts AS g FULL JOIN submitted_state_counts AS s ON g.state = s.state
WHERE g.count IS DISTINCT FROM s.count
UNION ALL
SELECT 'label_counts', coalesce(g.label, s.label), g.count, s.count
FROM label_counts AS g FULL JOIN submitted_label_counts AS s ON g.label = s.label
WHERE g.count IS DISTINCT FROM s.count
UNION ALL
SELECT 'newest_issue_ids', CAST(coalesce(g.rank, s.rank) AS VARCHAR), g.id, s.id
FROM newest_issue_ids AS g FULL JOIN submitted_newest_issue_ids AS s ON g.rank = s.rank
WHERE g.id IS DISTINCT FROM s.id
UNION ALL
SELECT 'most_recently_updated_issue_ids', CAST(coalesce(g.rank, s.rank) AS VARCHAR), g.id, s.id
FROM most_recently_updated_issue_ids AS g
FULL JOIN submitted_most_recently_updated_issue_ids AS s ON g.rank = s.rank
WHERE g.id IS DISTINCT FROM s.id
) WHERE graded_split() = 'test';
