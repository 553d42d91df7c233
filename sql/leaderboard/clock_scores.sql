-- Per run with a model cutoff: the primary score on the records created before it and on
-- those created at or after it, each with its 95% percentile bootstrap interval, and after
-- less before with the interval of that paired difference (a drop after the cutoff is the
-- sign of a model that saw the older records); `resamples` counts those where both are
-- defined.
CREATE OR REPLACE TABLE clock_scores AS
WITH
spreads AS (
    SELECT run_index, cell, quantile_cont(primary_score, [0.025, 0.975]) AS interval
    FROM clock_resampled
    GROUP BY ALL
),
differences AS (
    SELECT
        after.run_index, quantile_cont(after.primary_score - before.primary_score, [0.025, 0.975]) AS interval,
        count(after.primary_score - before.primary_score) AS resamples
    FROM clock_resampled AS after
    JOIN clock_resampled AS before
        ON before.run_index = after.run_index AND before.resample = after.resample AND before.cell = 'before'
    WHERE after.cell = 'after'
    GROUP BY ALL
)
SELECT
    cutoffs.run_index, cutoffs.run_id, cutoffs.model_cutoff,
    strftime(timezone('UTC', cutoffs.model_cutoff_at), '%Y-%m-%dT%H:%M:%SZ') AS cutoff_utc,
    coalesce(before.records, 0) AS records_before, before.primary_score AS primary_before,
    before_spread.interval[1] AS primary_before_low, before_spread.interval[2] AS primary_before_high,
    coalesce(after.records, 0) AS records_after, after.primary_score AS primary_after,
    after_spread.interval[1] AS primary_after_low, after_spread.interval[2] AS primary_after_high,
    after.primary_score - before.primary_score AS difference,
    differences.interval[1] AS difference_low, differences.interval[2] AS difference_high,
    coalesce(differences.interval[1] > 0 OR differences.interval[2] < 0, false) AS excludes_zero,
    coalesce(differences.resamples, 0) AS resamples
FROM clock_cutoffs AS cutoffs
LEFT JOIN clock_points AS before ON before.run_index = cutoffs.run_index AND before.cell = 'before'
LEFT JOIN clock_points AS after ON after.run_index = cutoffs.run_index AND after.cell = 'after'
LEFT JOIN spreads AS before_spread ON before_spread.run_index = cutoffs.run_index AND before_spread.cell = 'before'
LEFT JOIN spreads AS after_spread ON after_spread.run_index = cutoffs.run_index AND after_spread.cell = 'after'
LEFT JOIN differences ON differences.run_index = cutoffs.run_index
ORDER BY cutoffs.run_index;
