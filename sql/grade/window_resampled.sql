-- Per submission, slice and resample: true positives (gold less false negatives), false
-- positives and negatives over the window records drawn, and F1 2tp/(2tp+fp+fn) (NULL
-- where nothing is gold or submitted among them).
CREATE OR REPLACE TABLE window_resampled AS
WITH counts AS (
    SELECT
        facts.submission, facts.slice, weights.resample,
        sum(weights.weight * (facts.gold - facts.fn)) AS tp, sum(weights.weight * facts.fp) AS fp,
        sum(weights.weight * facts.fn) AS fn, sum(weights.weight * facts.submitted) AS submitted
    FROM window_record_slices AS facts
    JOIN window_weights AS weights USING (record_index)
    GROUP BY ALL
)
SELECT
    submission, slice, resample, tp, fp, fn,
    tp / nullif(tp + fp, 0) AS "precision",
    tp / nullif(tp + fn, 0) AS recall,
    2 * tp / nullif(2 * tp + fp + fn, 0) AS f1
FROM counts;
