-- Per submission, graded record in the window (window_dates) and fact slice: the gold and
-- submitted facts (answer_pairs) and the errors (fact_errors); record_index numbers the
-- window's records 0..n-1 by issue number, for the bootstrap to draw.
CREATE OR REPLACE TABLE window_record_slices AS
WITH
records AS (
    SELECT
        pairs.*,
        (dense_rank() OVER (ORDER BY pairs.number, pairs.id) - 1)::INTEGER AS record_index
    FROM answer_pairs AS pairs
    SEMI JOIN window_dates AS dates ON dates.id = pairs.id AND dates.in_window
),
counts AS (
    SELECT submission, id, record_index, unnest([
        {'slice': 'state', 'ordinal': 1, 'gold': 1, 'submitted': submitted::INTEGER},
        {'slice': 'labels', 'ordinal': 2, 'gold': gold_labels, 'submitted': submitted_labels},
        {'slice': 'references', 'ordinal': 3, 'gold': gold_references, 'submitted': submitted_references},
        {'slice': 'duplicate_targets', 'ordinal': 4, 'gold': gold_duplicate_targets,
            'submitted': submitted_duplicate_targets},
        {'slice': 'scope_contradictions', 'ordinal': 5, 'gold': gold_scope_contradictions,
            'submitted': submitted_scope_contradictions}
    ], recursive := true)
    FROM records
),
errors AS (
    SELECT
        submission, id, slice,
        count(*) FILTER (WHERE kind = 'false_positive') AS fp,
        count(*) FILTER (WHERE kind = 'false_negative') AS fn
    FROM fact_errors
    GROUP BY ALL
)
SELECT
    counts.submission, counts.id, counts.record_index, counts.slice, counts.ordinal,
    counts.gold::BIGINT AS gold, counts.submitted::BIGINT AS submitted,
    coalesce(errors.fp, 0) AS fp, coalesce(errors.fn, 0) AS fn
FROM counts
LEFT JOIN errors USING (submission, id, slice)
ORDER BY counts.submission, counts.record_index, counts.ordinal;
