-- Beyond the reference: per fact slice, the gold and submitted fact counts, errors,
-- precision and recall, and the test records with an error in that slice (first 20 by
-- number, with their count), so weak classes are not hidden in one average.
CREATE OR REPLACE TABLE slice_breakdown AS
WITH
slices(slice, ordinal) AS (
    VALUES ('state', 1), ('labels', 2), ('references', 3), ('duplicate_targets', 4), ('scope_contradictions', 5)
),
gold AS (SELECT slice, count(*) AS n FROM gold_facts GROUP BY slice),
submitted AS (SELECT slice, count(*) AS n FROM submitted_facts GROUP BY slice),
errors AS (
    SELECT
        slice,
        count(*) FILTER (WHERE kind = 'false_positive') AS fp,
        count(*) FILTER (WHERE kind = 'false_negative') AS fn
    FROM fact_errors GROUP BY slice
),
missed AS (
    SELECT slice, id, TRY_CAST(regexp_extract(id, '[0-9]+$') AS BIGINT) AS number
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
