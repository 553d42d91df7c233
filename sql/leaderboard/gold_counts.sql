-- Per group, graded record and score (each slice but 'all', each frequent label): the
-- record's gold facts. Gold is the same for every run of a group, so it is resampled once
-- per group; a run's true positives are its gold facts less its false negatives.
CREATE OR REPLACE TABLE gold_counts AS
WITH gold AS (
    SELECT DISTINCT runs.group_id, facts.id, facts.slice, facts.fact
    FROM runs.run_facts AS facts
    JOIN leaderboard_runs AS runs USING (run_id)
    WHERE facts.gold
),
scored AS (
    SELECT gold.group_id, gold.id, scores.score
    FROM gold JOIN leaderboard_scores AS scores ON scores.group_id = gold.group_id AND scores.key = gold.slice
    UNION ALL
    SELECT gold.group_id, gold.id, scores.score
    FROM gold JOIN leaderboard_scores AS scores USING (group_id, fact)
)
SELECT scored.group_id, scored.score, records.record_index, count(*)::INTEGER AS gold
FROM scored
JOIN graded_records AS records USING (group_id, id)
GROUP BY ALL;
