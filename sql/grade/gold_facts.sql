-- docs/format.md §8: the facts of every test record of the answer bundle (train/tune never count).
-- A view: the grade itself compares facts only where answer_pairs finds a difference.
CREATE OR REPLACE VIEW gold_facts AS
WITH graded AS (SELECT NULL::BIGINT AS submission, * FROM answers WHERE split = graded_split())
SELECT id, slice, fact
FROM answer_facts('graded');
