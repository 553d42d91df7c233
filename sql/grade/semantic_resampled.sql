-- docs/format.md §11: per resample and field: the records graded, answered (a valid answer)
-- and answered correctly (the gold's set exactly), and macro-F1: the mean F1 over the
-- labels in the gold or the answers (2 tp / (2 tp + fp + fn), as scikit-learn's default).
CREATE OR REPLACE TABLE semantic_resampled AS
WITH totals AS (
    SELECT
        w.resample, r.field,
        sum(w.weight) AS records,
        coalesce(sum(w.weight) FILTER (WHERE r.submitted IS NOT NULL), 0) AS answered,
        coalesce(sum(w.weight) FILTER (WHERE r.correct), 0) AS correct
    FROM semantic_results AS r JOIN agreement_weights AS w USING (record_index)
    GROUP BY ALL
),
f1 AS (
    SELECT resample, field, avg(2 * tp / (2 * tp + fp + fn)) AS macro_f1
    FROM semantic_label_counts WHERE tp + fp + fn > 0
    GROUP BY ALL
)
SELECT t.resample, t.field, t.records, t.answered, t.correct, f1.macro_f1
FROM totals AS t LEFT JOIN f1 USING (resample, field)
ORDER BY t.resample, t.field;
