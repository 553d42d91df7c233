-- Per group of runs, the slices the primary score averages: the derived ones (references,
-- duplicate targets, scope contradictions), which a candidate must work out, not copy
-- from the public corpus as it can state and labels. A slice with no gold fact among the
-- group's graded records has no F1 to average and is left out (`included` false), which
-- the leaderboard says.
CREATE OR REPLACE TABLE primary_slices AS
WITH derived(key, score) AS (VALUES ('references', 3), ('duplicate_targets', 4), ('scope_contradictions', 5)),
groups AS (SELECT DISTINCT group_id FROM graded_records),
gold AS (SELECT group_id, score, sum(gold)::BIGINT AS gold_facts FROM gold_counts GROUP BY ALL)
SELECT groups.group_id, derived.key, derived.score::INTEGER AS score, coalesce(gold.gold_facts, 0)::BIGINT AS gold_facts,
    coalesce(gold.gold_facts, 0) > 0 AS included
FROM groups
CROSS JOIN derived
LEFT JOIN gold ON gold.group_id = groups.group_id AND gold.score = derived.score
ORDER BY groups.group_id, derived.score;
