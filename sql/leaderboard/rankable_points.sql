-- Per graded run and score it can be ranked on (rankable_resamples' keys): the value on
-- all graded records, its 95% percentile bootstrap interval, and n, what the value rests
-- on (gold facts; records for an adjudicated score). Below
-- getvariable('leaderboard_min_n') the figure is `too_few` to rank on.
CREATE OR REPLACE TABLE rankable_points AS
WITH slices AS (
    SELECT s.run_index, r.group_id, CASE s.key WHEN 'all' THEN 'all-facts' ELSE s.key END AS key, s.key AS slice,
        s.f1 AS value, s.gold_facts::BIGINT AS n
    FROM score_intervals AS s
    JOIN leaderboard_runs AS r USING (run_index)
    WHERE s.scope = 'slice'
),
derived AS (
    SELECT slices.run_index, slices.group_id, 'derived' AS key, avg(slices.value) AS value, sum(slices.n)::BIGINT AS n
    FROM slices
    JOIN primary_slices AS p ON p.group_id = slices.group_id AND p.key = slices.slice AND p.included
    GROUP BY ALL
),
semantic AS (
    SELECT s.run_index, r.group_id, s.key, s.value, s.n
    FROM semantic_points AS s JOIN leaderboard_runs AS r USING (run_index)
),
points AS (
    SELECT run_index, group_id, key, value, n FROM slices
    UNION ALL
    SELECT * FROM derived
    UNION ALL
    SELECT * FROM semantic
),
spreads AS (
    SELECT run_index, key, quantile_cont(value, [0.025, 0.975]) AS bounds, count(value) AS resamples
    FROM rankable_resamples
    GROUP BY ALL
)
SELECT
    points.run_index, points.group_id, points.key, points.value,
    least(spreads.bounds[1], points.value) AS low, greatest(spreads.bounds[2], points.value) AS high,
    points.n, points.n < getvariable('leaderboard_min_n') AS too_few, coalesce(spreads.resamples, 0) AS resamples
FROM points
LEFT JOIN spreads USING (run_index, key)
ORDER BY points.run_index, points.key;
