-- The leaderboard's primary score over the window: the mean F1 of the derived slices
-- (references, duplicate_targets, scope_contradictions), a slice with no gold fact left
-- out (NULL when none has any); its interval is the 2.5% and 97.5% of the same mean in
-- each resample (the slices with gold among the records drawn).
CREATE OR REPLACE TABLE window_primary AS
WITH
derived AS (SELECT unnest(['references', 'duplicate_targets', 'scope_contradictions']) AS slice),
points AS (
    SELECT submission, avg(2 * (gold - fn) / (2 * gold - fn + fp)) FILTER (WHERE gold > 0) AS score
    FROM (
        SELECT binding.submission, derived.slice, coalesce(sum(f.gold), 0) AS gold, coalesce(sum(f.fp), 0) AS fp,
            coalesce(sum(f.fn), 0) AS fn
        FROM grade_binding AS binding
        CROSS JOIN derived
        LEFT JOIN window_record_slices AS f ON f.submission = binding.submission AND f.slice = derived.slice
        GROUP BY ALL
    )
    GROUP BY submission
),
resampled AS (
    SELECT submission, resample, avg(f1) FILTER (WHERE tp + fn > 0) AS score
    FROM window_resampled SEMI JOIN derived USING (slice)
    GROUP BY ALL
),
spreads AS (SELECT submission, quantile_cont(score, [0.025, 0.975]) AS interval FROM resampled GROUP BY ALL)
SELECT
    points.submission, round(points.score, 4) AS primary_score,
    round(spreads.interval[1], 4) AS primary_score_low, round(spreads.interval[2], 4) AS primary_score_high
FROM points
LEFT JOIN spreads USING (submission)
ORDER BY points.submission;
