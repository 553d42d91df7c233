-- SPEC §8: per test record of the bundle, the gold facts not submitted (false negatives)
-- and the submitted facts not in gold (false positives). Of repeated ids the last copy
-- counts; a test record missing from the submission loses all its facts.
CREATE OR REPLACE TABLE fact_errors AS
WITH
test_ids AS (SELECT id FROM answers WHERE split = 'test'),
last_copies AS (
    SELECT * FROM submitted_answers
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY pos DESC) = 1
),
gold AS (SELECT * FROM answer_facts('answers') WHERE id IN (SELECT id FROM test_ids)),
submitted AS (SELECT * FROM answer_facts('last_copies') WHERE id IN (SELECT id FROM test_ids))
SELECT
    coalesce(gold.id, submitted.id) AS id,
    coalesce(gold.slice, submitted.slice) AS slice,
    coalesce(gold.fact, submitted.fact) AS fact,
    CASE WHEN gold.fact IS NULL THEN 'false_positive' ELSE 'false_negative' END AS kind
FROM gold
FULL JOIN submitted ON gold.id = submitted.id AND gold.fact = submitted.fact
WHERE gold.fact IS NULL OR submitted.fact IS NULL
ORDER BY id, slice, fact;
