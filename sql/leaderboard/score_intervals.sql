-- Per graded run and score: its gold, submitted and true positive facts over all graded
-- records; precision, recall and F1 on them (the point); and each one's 95% percentile
-- bootstrap interval: 2.5% and 97.5% of its resamples where it is defined (`resamples`
-- counts those where F1 is).
CREATE OR REPLACE TABLE score_intervals AS
WITH gold AS (
    SELECT group_id, score, sum(gold) AS gold FROM gold_counts GROUP BY ALL
    UNION ALL
    SELECT group_id, 6, sum(gold) FROM gold_counts WHERE score <= 5 GROUP BY ALL
),
errors AS (
    SELECT run_index, score, sum(fp) AS fp, sum(fn) AS fn FROM error_counts GROUP BY ALL
    UNION ALL
    SELECT run_index, 6, sum(fp), sum(fn) FROM error_counts WHERE score <= 5 GROUP BY ALL
),
points AS (
    SELECT
        runs.run_index, runs.run_id, scores.score, scores.scope, scores.key,
        (coalesce(gold.gold, 0) - coalesce(errors.fn, 0))::BIGINT AS tp, coalesce(errors.fp, 0)::BIGINT AS fp,
        coalesce(errors.fn, 0)::BIGINT AS fn
    FROM leaderboard_runs AS runs
    JOIN leaderboard_scores AS scores USING (group_id)
    LEFT JOIN gold USING (group_id, score)
    LEFT JOIN errors USING (run_index, score)
    WHERE runs.graded
),
spreads AS (
    SELECT
        run_index, score,
        quantile_cont("precision", [0.025, 0.975]) AS precision_interval,
        quantile_cont(recall, [0.025, 0.975]) AS recall_interval,
        quantile_cont(f1, [0.025, 0.975]) AS f1_interval,
        count(f1) AS resamples
    FROM resample_scores
    GROUP BY ALL
)
SELECT
    points.run_index, points.run_id, points.score, points.scope, points.key,
    points.tp + points.fn AS gold_facts, points.tp + points.fp AS submitted_facts, points.tp AS true_positives,
    points.fp AS false_positives, points.fn AS false_negatives,
    points.tp / nullif(points.tp + points.fp, 0) AS "precision",
    spreads.precision_interval[1] AS precision_low, spreads.precision_interval[2] AS precision_high,
    points.tp / nullif(points.tp + points.fn, 0) AS recall,
    spreads.recall_interval[1] AS recall_low, spreads.recall_interval[2] AS recall_high,
    2 * points.tp / nullif(2 * points.tp + points.fp + points.fn, 0) AS f1,
    spreads.f1_interval[1] AS f1_low, spreads.f1_interval[2] AS f1_high,
    spreads.resamples
FROM points
JOIN spreads USING (run_index, score)
ORDER BY points.run_index, points.score;
