-- docs/format.md §8: per submission and graded (test, unless another split is graded) record,
-- whether it was submitted, its error counts, and exactness.
CREATE OR REPLACE TABLE record_results AS
WITH errors AS (
    SELECT
        submission,
        id,
        count(*) FILTER (WHERE kind = 'false_positive') AS false_positive_facts,
        count(*) FILTER (WHERE kind = 'false_negative') AS false_negative_facts
    FROM fact_errors
    GROUP BY submission, id
)
SELECT
    pairs.submission,
    pairs.id,
    pairs.submitted,
    coalesce(errors.false_positive_facts, 0) AS false_positive_facts,
    coalesce(errors.false_negative_facts, 0) AS false_negative_facts,
    errors.id IS NULL AS exact
FROM answer_pairs AS pairs
LEFT JOIN errors USING (submission, id)
ORDER BY pairs.submission, pairs.number, pairs.id;
