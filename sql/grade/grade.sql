-- docs/format.md §8 core grade, one row. A submission bound to another corpus gets the reference's
-- all-zero report (the CLI also says so plainly and fails).
-- (One-row parts joined: cheaper for DuckDB to plan than a scalar subquery per count.)
CREATE OR REPLACE TABLE grade AS
WITH
bound AS (SELECT answers_corpus_sha256 = submitted_corpus_sha256 AS ok, answers_corpus_sha256 FROM grade_binding),
records AS (SELECT count(*) AS test_records, count(*) FILTER (WHERE exact) AS exact_records FROM record_results),
facts AS (
    SELECT
        count(*) FILTER (WHERE kind = 'false_positive') AS false_positive_facts,
        count(*) FILTER (WHERE kind = 'false_negative') AS false_negative_facts
    FROM fact_errors
),
aggregates AS (SELECT least(count(*), 1) AS aggregate_errors FROM aggregate_errors),
citations AS (SELECT count(*) AS citation_errors FROM citation_errors)
SELECT
    'fak-microcontext-grade/1' AS schema,
    bound.answers_corpus_sha256 AS corpus_sha256,
    CASE WHEN bound.ok THEN test_records ELSE 0 END AS test_records,
    CASE WHEN bound.ok THEN exact_records ELSE 0 END AS exact_records,
    CASE WHEN bound.ok THEN false_positive_facts ELSE 0 END AS false_positive_facts,
    CASE WHEN bound.ok THEN false_negative_facts ELSE 0 END AS false_negative_facts,
    CASE WHEN bound.ok THEN aggregate_errors ELSE 0 END AS aggregate_errors,
    CASE WHEN bound.ok THEN citation_errors ELSE 0 END AS citation_errors,
    bound.ok AND test_records > 0 AND exact_records = test_records AND false_positive_facts = 0
        AND false_negative_facts = 0 AND aggregate_errors = 0 AND citation_errors = 0 AS quality_pass,
    bound.ok AS corpus_bound
FROM bound, records, facts, aggregates, citations;
