-- Per submission and fact slice, over the window's records: gold and submitted facts,
-- false positives and negatives, precision, recall and F1 with their 95% percentile
-- bootstrap intervals (window_resampled), rounded as the grade's breakdown rounds.
CREATE OR REPLACE TABLE window_slices AS
WITH
slices(slice, ordinal) AS (
    VALUES ('state', 1), ('labels', 2), ('references', 3), ('duplicate_targets', 4), ('scope_contradictions', 5)
),
points AS (
    SELECT
        binding.submission, slices.slice, slices.ordinal,
        coalesce(sum(facts.gold), 0)::BIGINT AS gold, coalesce(sum(facts.submitted), 0)::BIGINT AS submitted,
        coalesce(sum(facts.fp), 0)::BIGINT AS fp, coalesce(sum(facts.fn), 0)::BIGINT AS fn
    FROM grade_binding AS binding
    CROSS JOIN slices
    LEFT JOIN window_record_slices AS facts ON facts.submission = binding.submission AND facts.slice = slices.slice
    GROUP BY ALL
),
spreads AS (
    SELECT
        submission, slice,
        quantile_cont("precision", [0.025, 0.975]) AS p, quantile_cont(recall, [0.025, 0.975]) AS r,
        quantile_cont(f1, [0.025, 0.975]) AS f
    FROM window_resampled
    GROUP BY ALL
)
SELECT
    points.submission, points.slice, points.ordinal,
    points.gold AS gold_facts, points.submitted AS submitted_facts,
    points.fp AS false_positive_facts, points.fn AS false_negative_facts,
    round((points.gold - points.fn) / nullif(points.gold - points.fn + points.fp, 0), 4) AS "precision",
    round(spreads.p[1], 4) AS precision_low, round(spreads.p[2], 4) AS precision_high,
    round((points.gold - points.fn) / nullif(points.gold, 0), 4) AS recall,
    round(spreads.r[1], 4) AS recall_low, round(spreads.r[2], 4) AS recall_high,
    round(2 * (points.gold - points.fn) / nullif(2 * points.gold - points.fn + points.fp, 0), 4) AS f1,
    round(spreads.f[1], 4) AS f1_low, round(spreads.f[2], 4) AS f1_high
FROM points
LEFT JOIN spreads USING (submission, slice)
ORDER BY points.submission, points.ordinal;
