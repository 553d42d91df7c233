-- Per run, graded record and score (each slice but 'all', each frequent label): the
-- record's false positive and false negative facts, for the records with any. A good
-- run has few such rows, so resampling its errors costs little.
CREATE OR REPLACE TABLE error_counts AS
WITH errors AS (
    SELECT runs.run_index, runs.group_id, facts.id, facts.slice, facts.fact, facts.gold
    FROM runs.run_facts AS facts
    JOIN leaderboard_runs AS runs USING (run_id)
    WHERE facts.gold <> facts.submitted
),
scored AS (
    SELECT errors.run_index, errors.group_id, errors.id, scores.score, errors.gold
    FROM errors JOIN leaderboard_scores AS scores ON scores.group_id = errors.group_id AND scores.key = errors.slice
    UNION ALL
    SELECT errors.run_index, errors.group_id, errors.id, scores.score, errors.gold
    FROM errors JOIN leaderboard_scores AS scores USING (group_id, fact)
)
SELECT
    scored.run_index, scored.group_id, scored.score, records.record_index,
    count(*) FILTER (WHERE NOT scored.gold)::INTEGER AS fp, count(*) FILTER (WHERE scored.gold)::INTEGER AS fn
FROM scored
JOIN graded_records AS records USING (group_id, id)
GROUP BY ALL;
