-- docs/format.md §11: per rubric field, over the graded split: records graded, answered;
-- coverage (answered / records), accuracy (correct / records) and macro-F1, each with its
-- 95% percentile bootstrap interval over the records (widened where needed to contain its
-- point); per label its precision, recall and F1; and beside them the field's ceiling on
-- the graded split (gold_ceilings.sql, measured on the records graded), whether the
-- accuracy is above the ceiling's interval, the gold's coverage of the split, and what
-- makes the gold weak where it was written with --allow-weak (gold_gates.sql).
CREATE OR REPLACE TABLE semantic_grade AS
WITH figures AS (
    SELECT resample, field, answered / records AS coverage, correct / records AS accuracy, macro_f1
    FROM semantic_resampled
),
intervals AS (
    SELECT
        field,
        quantile_cont(coverage, [0.025, 0.975]) AS coverage_bounds,
        quantile_cont(accuracy, [0.025, 0.975]) AS accuracy_bounds,
        quantile_cont(macro_f1, [0.025, 0.975]) AS macro_f1_bounds
    FROM figures WHERE resample > 0
    GROUP BY ALL
),
labels AS (
    SELECT field, list({
        'label': label, 'gold': tp + fn, 'given': tp + fp, 'tp': tp,
        'precision': round(CASE WHEN tp + fp > 0 THEN tp / (tp + fp) END, 6),
        'recall': round(CASE WHEN tp + fn > 0 THEN tp / (tp + fn) END, 6),
        'f1': round(CASE WHEN tp + fp + fn > 0 THEN 2 * tp / (2 * tp + fp + fn) END, 6)
    } ORDER BY label_index) AS labels
    FROM semantic_label_counts WHERE resample = 0
    GROUP BY ALL
)
SELECT
    f.field_index, f.field,
    p.records::BIGINT AS records, p.answered::BIGINT AS answered,
    round(x.coverage, 6) AS coverage,
    round(least(i.coverage_bounds[1], x.coverage), 6) AS coverage_low,
    round(greatest(i.coverage_bounds[2], x.coverage), 6) AS coverage_high,
    round(x.accuracy, 6) AS accuracy,
    round(least(i.accuracy_bounds[1], x.accuracy), 6) AS accuracy_low,
    round(greatest(i.accuracy_bounds[2], x.accuracy), 6) AS accuracy_high,
    round(x.macro_f1, 6) AS macro_f1,
    round(least(i.macro_f1_bounds[1], x.macro_f1), 6) AS macro_f1_low,
    round(greatest(i.macro_f1_bounds[2], x.macro_f1), 6) AS macro_f1_high,
    c.ceiling, c.ceiling_low, c.ceiling_high, c.ceiling_basis, c.note AS ceiling_note, c.alpha AS ceiling_alpha,
    coalesce(round(x.accuracy, 6) > c.ceiling_high, false) AS above_ceiling, c.coverage AS gold_coverage,
    (
        SELECT string_agg(CASE w.figure
            WHEN 'alpha'
                THEN 'alpha ' || coalesce(printf('%.3f', w.value), 'undefined') || ' < ' || printf('%.3f', w.minimum)
            ELSE w.value::BIGINT || ' ' || w.split || ' gold records < ' || w.minimum::BIGINT END, '; ')
        FROM semantic_weaknesses AS w WHERE w.field = f.field AND (w.split IS NULL OR w.split = graded_split())
    ) AS weak,
    l.labels
FROM (SELECT DISTINCT field_index, field FROM semantic_rubric) AS f
LEFT JOIN semantic_resampled AS p ON p.field = f.field AND p.resample = 0
LEFT JOIN figures AS x ON x.field = f.field AND x.resample = 0
LEFT JOIN intervals AS i ON i.field = f.field
LEFT JOIN semantic_ceilings AS c ON c.field = f.field AND coalesce(c.split, graded_split()) = graded_split()
LEFT JOIN labels AS l ON l.field = f.field
ORDER BY f.field_index;
