-- SPEC §8: per test record, whether it was submitted, its error counts, and exactness.
CREATE OR REPLACE TABLE record_results AS
SELECT
    answers.id,
    answers.id IN (SELECT id FROM submitted_answers) AS submitted,
    count(*) FILTER (WHERE fact_errors.kind = 'false_positive') AS false_positive_facts,
    count(*) FILTER (WHERE fact_errors.kind = 'false_negative') AS false_negative_facts,
    count(fact_errors.kind) = 0 AS exact
FROM answers
LEFT JOIN fact_errors USING (id)
WHERE answers.split = 'test'
GROUP BY answers.id
ORDER BY TRY_CAST(regexp_extract(answers.id, '[0-9]+$') AS BIGINT), answers.id;
