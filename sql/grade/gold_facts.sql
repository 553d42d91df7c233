-- SPEC §8: the facts of every test record of the answer bundle (train/tune never count).
CREATE OR REPLACE TABLE gold_facts AS
SELECT facts.*
FROM answer_facts('answers') AS facts
WHERE facts.id IN (SELECT id FROM answers WHERE split = 'test');
