-- Per graded run, score of its group and resample: true positives (gold less false
-- negatives), false positives and false negatives over the records drawn, and precision
-- tp/(tp+fp), recall tp/(tp+fn) and F1 2tp/(2tp+fp+fn), each NULL where its denominator
-- is zero (nothing submitted, nothing gold, or neither among the records drawn).
CREATE OR REPLACE TABLE resample_scores AS
WITH counts AS (
    SELECT
        runs.run_index, scores.score, resamples.range::INTEGER AS resample,
        coalesce(gold.gold, 0) - coalesce(errors.fn, 0) AS tp, coalesce(errors.fp, 0) AS fp,
        coalesce(errors.fn, 0) AS fn
    FROM leaderboard_runs AS runs
    JOIN leaderboard_scores AS scores USING (group_id)
    CROSS JOIN range(getvariable('leaderboard_resamples')::BIGINT) AS resamples
    LEFT JOIN resampled_gold AS gold
        ON gold.group_id = runs.group_id AND gold.score = scores.score AND gold.resample = resamples.range
    LEFT JOIN resampled_errors AS errors
        ON errors.run_index = runs.run_index AND errors.score = scores.score AND errors.resample = resamples.range
    WHERE runs.graded
)
SELECT
    run_index, score, resample, tp, fp, fn,
    tp / nullif(tp + fp, 0) AS "precision",
    tp / nullif(tp + fn, 0) AS recall,
    2 * tp / nullif(2 * tp + fp + fn, 0) AS f1
FROM counts;
