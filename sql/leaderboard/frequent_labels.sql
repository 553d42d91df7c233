-- Per group, every label with at least getvariable('leaderboard_min_label_facts') gold
-- occurrences among the graded records: each gets its own precision, recall and F1, so a
-- weak class is visible instead of averaged away. Gold facts are the same for every run
-- of a group; count each (record, label) once.
CREATE OR REPLACE TABLE frequent_labels AS
WITH gold AS (
    SELECT DISTINCT runs.group_id, facts.id, facts.fact
    FROM runs.run_facts AS facts
    JOIN leaderboard_runs AS runs USING (run_id)
    WHERE facts.slice = 'labels' AND facts.gold
)
SELECT group_id, fact, substr(fact, length('label:') + 1) AS label, count(*) AS gold_records
FROM gold
GROUP BY group_id, fact
HAVING count(*) >= getvariable('leaderboard_min_label_facts')
ORDER BY group_id, gold_records DESC, label;
