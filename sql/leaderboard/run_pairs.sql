-- Per group, score it can be ranked on, and pair of its graded runs (a started before b),
-- both with a value: the value of a less b's, the 95% percentile interval of that
-- difference over the resamples, paired (each resample draws the same records for both),
-- and whether the pair is `separated`: the interval excludes zero.
CREATE OR REPLACE TABLE run_pairs AS
WITH pairs AS (
    SELECT a.group_id, a.key, a.run_index AS a, b.run_index AS b, a.value - b.value AS difference
    FROM rankable_points AS a
    JOIN rankable_points AS b ON b.group_id = a.group_id AND b.key = a.key AND b.run_index > a.run_index
    WHERE a.value IS NOT NULL AND b.value IS NOT NULL
),
differences AS (
    SELECT pairs.group_id, pairs.key, pairs.a, pairs.b, x.value - y.value AS difference
    FROM pairs
    JOIN rankable_resamples AS x ON x.run_index = pairs.a AND x.key = pairs.key
    JOIN rankable_resamples AS y ON y.run_index = pairs.b AND y.key = pairs.key AND y.resample = x.resample
),
spreads AS (
    SELECT group_id, key, a, b, quantile_cont(difference, [0.025, 0.975]) AS bounds, count(difference) AS resamples
    FROM differences
    GROUP BY ALL
)
SELECT
    pairs.group_id, pairs.key, pairs.a, pairs.b, pairs.difference, spreads.bounds[1] AS low,
    spreads.bounds[2] AS high, coalesce(spreads.bounds[1] > 0 OR spreads.bounds[2] < 0, false) AS separated,
    coalesce(spreads.resamples, 0) AS resamples
FROM pairs
LEFT JOIN spreads USING (group_id, key, a, b)
ORDER BY pairs.group_id, pairs.key, pairs.a, pairs.b;
