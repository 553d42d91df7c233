-- Beyond the reference: per submission and fact slice, the gold and submitted fact counts (from
-- answer_pairs), errors, precision and recall, and the test records with an error in
-- that slice (first 20 by number, with their count), so weak classes are not hidden in
-- one average.
CREATE OR REPLACE TABLE slice_breakdown AS
WITH
totals AS (  -- (every submission graded, even where the split has no record)
    SELECT submission, unnest([
        {'slice': 'state', 'ordinal': 1, 'gold': count(pairs.id), 'submitted': count(*) FILTER (WHERE submitted)},
        {'slice': 'labels', 'ordinal': 2, 'gold': sum(gold_labels)::BIGINT, 'submitted': sum(submitted_labels)::BIGINT},
        {'slice': 'references', 'ordinal': 3, 'gold': sum(gold_references)::BIGINT,
            'submitted': sum(submitted_references)::BIGINT},
        {'slice': 'duplicate_targets', 'ordinal': 4, 'gold': sum(gold_duplicate_targets)::BIGINT,
            'submitted': sum(submitted_duplicate_targets)::BIGINT},
        {'slice': 'scope_contradictions', 'ordinal': 5, 'gold': sum(gold_scope_contradictions)::BIGINT,
            'submitted': sum(submitted_scope_contradictions)::BIGINT}
    ], recursive := true)
    FROM grade_binding
    LEFT JOIN answer_pairs AS pairs USING (submission)
    GROUP BY submission
),
records AS (SELECT submission, slice, id, id_number(id) AS number FROM fact_errors GROUP BY submission, slice, id),
errors AS (
    SELECT
        submission,
        slice,
        count(*) FILTER (WHERE kind = 'false_positive') AS fp,
        count(*) FILTER (WHERE kind = 'false_negative') AS fn
    FROM fact_errors GROUP BY submission, slice
),
record_lists AS (
    SELECT submission, slice, count(*) AS n, list(id ORDER BY number, id)[1:20] AS ids
    FROM records GROUP BY submission, slice
)
SELECT
    totals.submission,
    totals.slice,
    coalesce(totals.gold, 0) AS gold_facts,
    coalesce(totals.submitted, 0) AS submitted_facts,
    coalesce(errors.fp, 0) AS false_positive_facts,
    coalesce(errors.fn, 0) AS false_negative_facts,
    CASE WHEN coalesce(totals.submitted, 0) > 0
        THEN round((totals.submitted - coalesce(errors.fp, 0)) / totals.submitted, 4) END AS precision,
    CASE WHEN coalesce(totals.gold, 0) > 0
        THEN round((totals.gold - coalesce(errors.fn, 0)) / totals.gold, 4) END AS recall,
    coalesce(record_lists.n, 0) AS records_with_errors,
    coalesce(record_lists.ids, []) AS first_records_with_errors
FROM totals
LEFT JOIN errors USING (submission, slice)
LEFT JOIN record_lists USING (submission, slice)
ORDER BY totals.submission, totals.ordinal;
