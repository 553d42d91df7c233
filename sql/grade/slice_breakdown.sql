-- Beyond the reference: per fact slice, the gold and submitted fact counts (from
-- answer_pairs), errors, precision and recall, and the test records with an error in
-- that slice (first 20 by number, with their count), so weak classes are not hidden in
-- one average.
CREATE OR REPLACE TABLE slice_breakdown AS
WITH
slices(slice, ordinal) AS (
    VALUES ('state', 1), ('labels', 2), ('references', 3), ('duplicate_targets', 4), ('scope_contradictions', 5)
),
totals AS (
    SELECT
        count(*) AS gold_state, count(*) FILTER (WHERE submitted) AS submitted_state,
        sum(gold_labels)::BIGINT AS gold_labels, sum(submitted_labels)::BIGINT AS submitted_labels,
        sum(gold_references)::BIGINT AS gold_references, sum(submitted_references)::BIGINT AS submitted_references,
        sum(gold_duplicate_targets)::BIGINT AS gold_duplicate_targets,
        sum(submitted_duplicate_targets)::BIGINT AS submitted_duplicate_targets,
        sum(gold_scope_contradictions)::BIGINT AS gold_scope_contradictions,
        sum(submitted_scope_contradictions)::BIGINT AS submitted_scope_contradictions
    FROM answer_pairs
),
counts(slice, gold, submitted) AS (
    SELECT 'state', gold_state, submitted_state FROM totals
    UNION ALL SELECT 'labels', gold_labels, submitted_labels FROM totals
    UNION ALL SELECT 'references', gold_references, submitted_references FROM totals
    UNION ALL SELECT 'duplicate_targets', gold_duplicate_targets, submitted_duplicate_targets FROM totals
    UNION ALL SELECT 'scope_contradictions', gold_scope_contradictions, submitted_scope_contradictions FROM totals
),
gold AS (SELECT slice, gold AS n FROM counts WHERE gold > 0),
submitted AS (SELECT slice, submitted AS n FROM counts WHERE submitted > 0),
errors AS (
    SELECT
        slice,
        count(*) FILTER (WHERE kind = 'false_positive') AS fp,
        count(*) FILTER (WHERE kind = 'false_negative') AS fn
    FROM fact_errors GROUP BY slice
),
missed AS (
    SELECT slice, id, id_number(id) AS number
    FROM fact_errors GROUP BY slice, id
),
missed_lists AS (
    SELECT slice, count(*) AS n, list(id ORDER BY number, id)[1:20] AS ids FROM missed GROUP BY slice
)
SELECT
    slices.slice,
    coalesce(gold.n, 0) AS gold_facts,
    coalesce(submitted.n, 0) AS submitted_facts,
    coalesce(errors.fp, 0) AS false_positive_facts,
    coalesce(errors.fn, 0) AS false_negative_facts,
    CASE WHEN coalesce(submitted.n, 0) > 0
        THEN round((submitted.n - coalesce(errors.fp, 0)) / submitted.n, 4) END AS precision,
    CASE WHEN coalesce(gold.n, 0) > 0 THEN round((gold.n - coalesce(errors.fn, 0)) / gold.n, 4) END AS recall,
    coalesce(missed_lists.n, 0) AS records_with_errors,
    coalesce(missed_lists.ids, []) AS first_records_with_errors
FROM slices
LEFT JOIN gold USING (slice)
LEFT JOIN submitted USING (slice)
LEFT JOIN errors USING (slice)
LEFT JOIN missed_lists USING (slice)
ORDER BY slices.ordinal;
