-- SPEC §8: per test record, the gold facts not submitted (false negatives) and the
-- submitted facts not in gold (false positives); a test record missing from the
-- submission loses all its facts.
CREATE OR REPLACE TABLE fact_errors AS
SELECT
    coalesce(gold.id, submitted.id) AS id,
    coalesce(gold.slice, submitted.slice) AS slice,
    coalesce(gold.fact, submitted.fact) AS fact,
    CASE WHEN gold.fact IS NULL THEN 'false_positive' ELSE 'false_negative' END AS kind
FROM gold_facts AS gold
FULL JOIN submitted_facts AS submitted ON gold.id = submitted.id AND gold.fact = submitted.fact
WHERE gold.fact IS NULL OR submitted.fact IS NULL
ORDER BY id, slice, fact;
