-- docs/format.md §8: the facts of every test record of the answer bundle (train/tune never count).
-- A view: the grade itself compares facts only where answer_pairs finds a difference.
CREATE OR REPLACE VIEW gold_facts AS
SELECT facts.*
FROM answer_facts('answers') AS facts
WHERE facts.id IN (SELECT id FROM answers WHERE split = graded_split());
