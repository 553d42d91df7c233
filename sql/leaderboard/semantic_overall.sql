-- Per graded run with a semantic grade: its accuracy over every adjudicated field of every
-- record graded (one number, for cost against quality) and its 95% percentile bootstrap
-- interval, each record drawn as resample_weights draws it for the run's group (the same
-- draws as the fact slices).
CREATE OR REPLACE TABLE semantic_overall AS
WITH results AS (
    SELECT r.run_index, r.run_id, g.record_index, r.group_id, x.correct::INTEGER AS correct
    FROM runs.run_semantic_results AS x
    JOIN leaderboard_runs AS r USING (run_id)
    JOIN graded_records AS g ON g.group_id = r.group_id AND g.id = x.id
),
resampled AS (
    SELECT x.run_index, w.resample, sum(w.weight * x.correct) / sum(w.weight) AS accuracy
    FROM results AS x
    JOIN resample_weights AS w USING (group_id, record_index)
    GROUP BY ALL
),
spreads AS (
    SELECT run_index, quantile_cont(accuracy, [0.025, 0.975]) AS bounds FROM resampled GROUP BY run_index
),
points AS (SELECT run_index, run_id, avg(correct) AS accuracy, count(*) AS answers FROM results GROUP BY ALL)
SELECT
    p.run_index, p.run_id, p.answers, p.accuracy,
    least(s.bounds[1], p.accuracy) AS accuracy_low, greatest(s.bounds[2], p.accuracy) AS accuracy_high
FROM points AS p
LEFT JOIN spreads AS s USING (run_index)
ORDER BY p.run_index;
