-- docs/format.md §8: per graded (test, unless another split is graded) record, the gold facts not submitted (false negatives) and the
-- submitted facts not in gold (false positives); a test record missing from the
-- submission loses all its facts. Only pairs that are not the `same` can differ.
CREATE OR REPLACE TABLE fact_errors AS
WITH
differing AS (SELECT submission, id FROM answer_pairs WHERE NOT same),
gold_answers AS (SELECT differing.submission, gold.* FROM differing JOIN answers AS gold USING (id)),
differing_submitted AS (SELECT * FROM submitted_answers SEMI JOIN differing USING (submission, id)),
submitted_copies AS (SELECT * FROM last_copies('differing_submitted')),
gold AS (SELECT * FROM answer_facts('gold_answers')),
submitted AS (SELECT * FROM answer_facts('submitted_copies'))
SELECT
    coalesce(gold.submission, submitted.submission) AS submission,
    coalesce(gold.id, submitted.id) AS id,
    coalesce(gold.slice, submitted.slice) AS slice,
    coalesce(gold.fact, submitted.fact) AS fact,
    CASE WHEN gold.fact IS NULL THEN 'false_positive' ELSE 'false_negative' END AS kind
FROM gold
FULL JOIN submitted ON gold.submission = submitted.submission AND gold.id = submitted.id AND gold.fact = submitted.fact
WHERE gold.fact IS NULL OR submitted.fact IS NULL
ORDER BY submission, id, slice, fact;
