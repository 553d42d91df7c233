-- docs/format.md §8: the differing entries of each aggregate (a key whose count differs or that
-- only one side has; a rank whose id differs or that only one side has), per submission. The
-- aggregates are corpus-wide, so only the held-out (test) grade compares them: a tune or
-- train grade reads none of the gold aggregates. An aggregate that one side leaves out (or
-- gives as null) and the other gives empty differs as well (their JSON encodings do): the
-- entry 'null'. Each gold aggregate is set beside every submission (graded) before the
-- full join, so that a key only the gold has is missing from each submission alone.
CREATE OR REPLACE TABLE aggregate_errors AS
WITH
graded AS (SELECT submission FROM grade_binding WHERE graded_split() = 'test'),
gold_state_counts AS (SELECT * FROM graded, state_counts),
gold_label_counts AS (SELECT * FROM graded, label_counts),
gold_newest_issue_ids AS (SELECT * FROM graded, newest_issue_ids),
gold_most_recently_updated_issue_ids AS (SELECT * FROM graded, most_recently_updated_issue_ids),
sent_state_counts AS (SELECT * FROM submitted_state_counts SEMI JOIN graded USING (submission)),
sent_label_counts AS (SELECT * FROM submitted_label_counts SEMI JOIN graded USING (submission)),
sent_newest_issue_ids AS (SELECT * FROM submitted_newest_issue_ids SEMI JOIN graded USING (submission)),
sent_most_recently_updated_issue_ids AS (
    SELECT * FROM submitted_most_recently_updated_issue_ids SEMI JOIN graded USING (submission)
),
present AS (  -- per submission, which aggregates either side has an entry of
    SELECT submission, 'state_counts' AS aggregate FROM gold_state_counts
    UNION SELECT submission, 'state_counts' FROM sent_state_counts
    UNION SELECT submission, 'label_counts' FROM gold_label_counts
    UNION SELECT submission, 'label_counts' FROM sent_label_counts
    UNION SELECT submission, 'newest_issue_ids' FROM gold_newest_issue_ids
    UNION SELECT submission, 'newest_issue_ids' FROM sent_newest_issue_ids
    UNION SELECT submission, 'most_recently_updated_issue_ids' FROM gold_most_recently_updated_issue_ids
    UNION SELECT submission, 'most_recently_updated_issue_ids' FROM sent_most_recently_updated_issue_ids
)
SELECT coalesce(g.submission, s.submission) AS submission, 'state_counts' AS aggregate,
    coalesce(g.state, s.state) AS entry, g.count AS gold, s.count AS submitted
FROM gold_state_counts AS g FULL JOIN sent_state_counts AS s ON g.submission = s.submission AND g.state = s.state
WHERE g.count IS DISTINCT FROM s.count
UNION ALL
SELECT coalesce(g.submission, s.submission), 'label_counts', coalesce(g.label, s.label), g.count, s.count
FROM gold_label_counts AS g FULL JOIN sent_label_counts AS s ON g.submission = s.submission AND g.label = s.label
WHERE g.count IS DISTINCT FROM s.count
UNION ALL
SELECT coalesce(g.submission, s.submission), 'newest_issue_ids', CAST(coalesce(g.rank, s.rank) AS VARCHAR), g.id, s.id
FROM gold_newest_issue_ids AS g FULL JOIN sent_newest_issue_ids AS s ON g.submission = s.submission AND g.rank = s.rank
WHERE g.id IS DISTINCT FROM s.id
UNION ALL
SELECT coalesce(g.submission, s.submission), 'most_recently_updated_issue_ids', CAST(coalesce(g.rank, s.rank) AS VARCHAR),
    g.id, s.id
FROM gold_most_recently_updated_issue_ids AS g
FULL JOIN sent_most_recently_updated_issue_ids AS s ON g.submission = s.submission AND g.rank = s.rank
WHERE g.id IS DISTINCT FROM s.id
UNION ALL
SELECT graded.submission, g.aggregate, 'null', NULL, NULL
FROM graded
CROSS JOIN aggregate_nulls AS g
JOIN submitted_aggregate_nulls AS s ON s.submission = graded.submission AND s.aggregate = g.aggregate
ANTI JOIN present ON present.submission = graded.submission AND present.aggregate = g.aggregate
WHERE g.missing <> s.missing;
