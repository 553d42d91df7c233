-- Per group, graded record and score (each slice but 'all', each frequent label): the
-- record's gold facts. Gold is the same for every run of a group, so it is resampled once
-- per group; a run's true positives are its gold facts less its false negatives. A run
-- lists some of a slice's gold facts and counts the rest (missed_facts): its sum is the
-- same for every run of the group; labels are always listed.
CREATE OR REPLACE TABLE gold_counts AS
WITH listed AS (
    SELECT runs.group_id, facts.run_id, facts.id, facts.slice, facts.fact
    FROM runs.run_facts AS facts
    JOIN leaderboard_runs AS runs USING (run_id)
    WHERE facts.gold
),
per_run AS (
    SELECT group_id, run_id, id, slice, count(*) AS gold FROM listed GROUP BY ALL
    UNION ALL
    SELECT runs.group_id, missed.run_id, missed.id, missed.slice, missed.missed
    FROM missed_facts AS missed
    JOIN leaderboard_runs AS runs USING (run_id)
),
per_slice AS (
    SELECT group_id, id, slice, max(gold) AS gold
    FROM (SELECT group_id, run_id, id, slice, sum(gold) AS gold FROM per_run GROUP BY ALL)
    GROUP BY ALL
),
labels AS (SELECT DISTINCT group_id, id, fact FROM listed WHERE slice = 'labels'),
scored AS (
    SELECT per_slice.group_id, per_slice.id, scores.score, per_slice.gold
    FROM per_slice
    JOIN leaderboard_scores AS scores ON scores.group_id = per_slice.group_id AND scores.key = per_slice.slice
    UNION ALL
    SELECT labels.group_id, labels.id, scores.score, 1
    FROM labels JOIN leaderboard_scores AS scores USING (group_id, fact)
)
SELECT scored.group_id, scored.score, records.record_index, sum(scored.gold)::INTEGER AS gold
FROM scored
JOIN graded_records AS records USING (group_id, id)
GROUP BY ALL;
