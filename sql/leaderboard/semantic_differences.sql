-- For a comparison of two runs (leaderboard_run_a, leaderboard_run_b; no rows without
-- them, or where either has no semantic grade): per field, accuracy of A less accuracy of
-- B on the records both were graded on, and the 95% percentile interval of that
-- difference over the resamples, paired: resample_weights draws the same records for
-- both. The difference counts where the interval excludes zero.
CREATE OR REPLACE TABLE semantic_differences AS
WITH results AS (
    SELECT x.run_id, x.id, x.field, x.correct::INTEGER AS correct
    FROM runs.run_semantic_results AS x
    WHERE x.run_id IN (getvariable('leaderboard_run_a'), getvariable('leaderboard_run_b'))
),
paired AS (
    SELECT a.field, g.group_id, g.record_index, a.correct - b.correct AS difference, a.correct AS a, b.correct AS b
    FROM results AS a
    JOIN results AS b ON b.id = a.id AND b.field = a.field AND b.run_id = getvariable('leaderboard_run_b')
    JOIN leaderboard_runs AS r ON r.run_id = getvariable('leaderboard_run_a')
    JOIN graded_records AS g ON g.group_id = r.group_id AND g.id = a.id
    WHERE a.run_id = getvariable('leaderboard_run_a')
),
points AS (
    SELECT field, avg(a) AS accuracy_a, avg(b) AS accuracy_b, avg(difference) AS difference, count(*) AS records
    FROM paired GROUP BY field
),
resampled AS (
    SELECT w.resample, p.field, sum(w.weight * p.difference) / sum(w.weight) AS difference
    FROM paired AS p
    JOIN resample_weights AS w USING (group_id, record_index)
    GROUP BY ALL
),
spreads AS (
    SELECT field, quantile_cont(difference, [0.025, 0.975]) AS bounds, count(*) AS resamples
    FROM resampled GROUP BY field
)
SELECT
    f.field_index, p.field, p.records, p.accuracy_a, p.accuracy_b, p.difference,
    least(s.bounds[1], p.difference) AS low, greatest(s.bounds[2], p.difference) AS high,
    coalesce(s.bounds[1] > 0 OR s.bounds[2] < 0, false) AS excludes_zero, s.resamples
FROM points AS p
LEFT JOIN spreads AS s USING (field)
LEFT JOIN (
    SELECT DISTINCT field, field_index FROM runs.run_semantic WHERE run_id = getvariable('leaderboard_run_a')
) AS f USING (field)
ORDER BY f.field_index, p.field;
