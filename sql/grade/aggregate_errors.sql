-- docs/format.md §8: the differing entries of each aggregate (a key whose count differs or that
-- only one side has; a rank whose id differs or that only one side has). The aggregates
-- are corpus-wide, so only the held-out (test) grade compares them: a tune or train grade
-- reads none of the gold aggregates. An aggregate that one side leaves out (or gives as null)
-- and the other gives empty differs as well (their JSON encodings do): the entry 'null'.
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
UNION ALL
SELECT g.aggregate, 'null', NULL, NULL
FROM aggregate_nulls AS g JOIN submitted_aggregate_nulls AS s USING (aggregate)
WHERE g.missing <> s.missing
    AND NOT EXISTS (FROM state_counts WHERE g.aggregate = 'state_counts')
    AND NOT EXISTS (FROM submitted_state_counts WHERE g.aggregate = 'state_counts')
    AND NOT EXISTS (FROM label_counts WHERE g.aggregate = 'label_counts')
    AND NOT EXISTS (FROM submitted_label_counts WHERE g.aggregate = 'label_counts')
    AND NOT EXISTS (FROM newest_issue_ids WHERE g.aggregate = 'newest_issue_ids')
    AND NOT EXISTS (FROM submitted_newest_issue_ids WHERE g.aggregate = 'newest_issue_ids')
    AND NOT EXISTS (FROM most_recently_updated_issue_ids WHERE g.aggregate = 'most_recently_updated_issue_ids')
    AND NOT EXISTS (FROM submitted_most_recently_updated_issue_ids
                    WHERE g.aggregate = 'most_recently_updated_issue_ids')
) WHERE graded_split() = 'test';
