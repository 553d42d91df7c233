-- docs/format.md §8 core grade, one row per submission. A submission bound to another corpus gets
-- the reference's all-zero report (the CLI also says so plainly and fails).
-- (Per-submission parts joined: cheaper for DuckDB to plan than a scalar subquery per count.)
CREATE OR REPLACE TABLE grade AS
WITH
bound AS (
    SELECT submission, answers_corpus_sha256 = submitted_corpus_sha256 AS ok, answers_corpus_sha256
    FROM grade_binding
),
records AS (
    SELECT submission, count(*) AS test_records, count(*) FILTER (WHERE exact) AS exact_records
    FROM record_results GROUP BY submission
),
facts AS (
    SELECT
        submission,
        count(*) FILTER (WHERE kind = 'false_positive') AS false_positive_facts,
        count(*) FILTER (WHERE kind = 'false_negative') AS false_negative_facts
    FROM fact_errors GROUP BY submission
),
aggregates AS (SELECT submission, least(count(*), 1) AS aggregate_errors FROM aggregate_errors GROUP BY submission),
citations AS (SELECT submission, count(*) AS citation_errors FROM citation_errors GROUP BY submission),
counts AS (
    SELECT
        bound.submission, bound.ok, bound.answers_corpus_sha256,
        coalesce(test_records, 0) AS test_records, coalesce(exact_records, 0) AS exact_records,
        coalesce(false_positive_facts, 0) AS false_positive_facts,
        coalesce(false_negative_facts, 0) AS false_negative_facts,
        coalesce(aggregate_errors, 0) AS aggregate_errors, coalesce(citation_errors, 0) AS citation_errors
    FROM bound
    LEFT JOIN records USING (submission)
    LEFT JOIN facts USING (submission)
    LEFT JOIN aggregates USING (submission)
    LEFT JOIN citations USING (submission)
)
SELECT
    submission,
    'fak-microcontext-grade/1' AS schema,
    answers_corpus_sha256 AS corpus_sha256,
    CASE WHEN ok THEN test_records ELSE 0 END AS test_records,
    CASE WHEN ok THEN exact_records ELSE 0 END AS exact_records,
    CASE WHEN ok THEN false_positive_facts ELSE 0 END AS false_positive_facts,
    CASE WHEN ok THEN false_negative_facts ELSE 0 END AS false_negative_facts,
    CASE WHEN ok THEN aggregate_errors ELSE 0 END AS aggregate_errors,
    CASE WHEN ok THEN citation_errors ELSE 0 END AS citation_errors,
    ok AND test_records > 0 AND exact_records = test_records AND false_positive_facts = 0
        AND false_negative_facts = 0 AND aggregate_errors = 0 AND citation_errors = 0 AS quality_pass,
    ok AS corpus_bound
FROM counts
ORDER BY submission;
