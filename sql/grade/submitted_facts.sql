-- docs/format.md §8: the facts submitted for test records; of repeated ids the last copy counts.
-- The submission's own `split` is ignored: the bundle decides what is held out.
-- A view, like gold_facts.
CREATE OR REPLACE VIEW submitted_facts AS
WITH submitted AS (SELECT * FROM last_copies('submitted_answers'))
SELECT facts.*
FROM answer_facts('submitted') AS facts
WHERE facts.id IN (SELECT id FROM answers WHERE split = graded_split());
