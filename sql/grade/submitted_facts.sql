-- SPEC §8: the facts submitted for test records; of repeated ids the last copy counts.
-- The submission's own `split` is ignored: the bundle decides what is held out.
CREATE OR REPLACE TABLE submitted_facts AS
WITH last_copies AS (
    SELECT * FROM submitted_answers
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY pos DESC) = 1
)
SELECT facts.*
FROM answer_facts('last_copies') AS facts
WHERE facts.id IN (SELECT id FROM answers WHERE split = 'test');
