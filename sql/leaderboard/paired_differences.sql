-- For a comparison of two runs of one group (the variables leaderboard_run_a and
-- leaderboard_run_b hold their ids; no rows without them): per score, F1 of A less F1 of
-- B on all graded records, and the 95% percentile interval of that difference over the
-- resamples, paired: each resample draws the same records for both runs. `resamples`
-- counts those where both F1 are defined; the difference is shown where the interval
-- excludes zero; n, the gold facts the score rests on. First (score 0) the primary score ('derived', rankable_resamples), paired alike.
CREATE OR REPLACE TABLE paired_differences AS
WITH pair AS (
    SELECT a.run_index AS a, b.run_index AS b
    FROM leaderboard_runs AS a, leaderboard_runs AS b
    WHERE a.run_id = getvariable('leaderboard_run_a') AND b.run_id = getvariable('leaderboard_run_b')
),
differences AS (
    SELECT score_a.score, score_a.f1 - score_b.f1 AS difference
    FROM pair
    JOIN resample_scores AS score_a ON score_a.run_index = pair.a
    JOIN resample_scores AS score_b ON score_b.run_index = pair.b AND score_b.score = score_a.score
        AND score_b.resample = score_a.resample
),
spreads AS (
    SELECT score, quantile_cont(difference, [0.025, 0.975]) AS interval, count(difference) AS resamples
    FROM differences
    GROUP BY score
)
SELECT
    point_a.score, point_a.scope, point_a.key, point_a.f1 AS f1_a, point_b.f1 AS f1_b,
    point_a.f1 - point_b.f1 AS difference, spreads.interval[1] AS low, spreads.interval[2] AS high,
    coalesce(spreads.interval[1] > 0 OR spreads.interval[2] < 0, false) AS excludes_zero, spreads.resamples,
    point_a.gold_facts AS n
FROM pair
JOIN score_intervals AS point_a ON point_a.run_index = pair.a
JOIN score_intervals AS point_b ON point_b.run_index = pair.b AND point_b.score = point_a.score
JOIN spreads ON spreads.score = point_a.score
UNION ALL
SELECT
    0, 'primary', 'derived', point_a.value, point_b.value, point_a.value - point_b.value, spreads.interval[1],
    spreads.interval[2], coalesce(spreads.interval[1] > 0 OR spreads.interval[2] < 0, false), spreads.resamples,
    point_a.n
FROM pair
JOIN rankable_points AS point_a ON point_a.run_index = pair.a AND point_a.key = 'derived'
JOIN rankable_points AS point_b ON point_b.run_index = pair.b AND point_b.key = 'derived'
CROSS JOIN (
    SELECT quantile_cont(x.value - y.value, [0.025, 0.975]) AS interval, count(x.value - y.value) AS resamples
    FROM pair
    JOIN rankable_resamples AS x ON x.run_index = pair.a AND x.key = 'derived'
    JOIN rankable_resamples AS y ON y.run_index = pair.b AND y.key = 'derived' AND y.resample = x.resample
) AS spreads
ORDER BY score;
