-- Per run, graded record and score (each slice but 'all', each frequent label): the
-- record's false positive and false negative facts, for the records with any. A good
-- run has few such rows, so resampling its errors costs little. The missed facts a run
-- counts instead of listing (missed_facts, never labels) are false negatives of their slice.
CREATE OR REPLACE TABLE error_counts AS
WITH errors AS (
    SELECT runs.run_index, runs.group_id, facts.id, facts.slice, facts.fact, facts.gold, 1 AS n
    FROM runs.run_facts AS facts
    JOIN leaderboard_runs AS runs USING (run_id)
    WHERE facts.gold <> facts.submitted
    UNION ALL
    SELECT runs.run_index, runs.group_id, missed.id, missed.slice, NULL, true, missed.missed
    FROM missed_facts AS missed
    JOIN leaderboard_runs AS runs USING (run_id)
),
scored AS (
    SELECT errors.run_index, errors.group_id, errors.id, scores.score, errors.gold, errors.n
    FROM errors JOIN leaderboard_scores AS scores ON scores.group_id = errors.group_id AND scores.key = errors.slice
    UNION ALL
    SELECT errors.run_index, errors.group_id, errors.id, scores.score, errors.gold, errors.n
    FROM errors JOIN leaderboard_scores AS scores USING (group_id, fact)
)
SELECT
    scored.run_index, scored.group_id, scored.score, records.record_index,
    coalesce(sum(scored.n) FILTER (WHERE NOT scored.gold), 0)::INTEGER AS fp,
    coalesce(sum(scored.n) FILTER (WHERE scored.gold), 0)::INTEGER AS fn
FROM scored
JOIN graded_records AS records USING (group_id, id)
GROUP BY ALL;
