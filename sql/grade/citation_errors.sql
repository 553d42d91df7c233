-- docs/format.md §8: one citation error per submitted answer whose id the bundle does not know
-- (ids are case-sensitive; '' is unknown) or that repeats an id submitted earlier.
CREATE OR REPLACE TABLE citation_errors AS
WITH copies AS (
    SELECT pos, id, row_number() OVER (PARTITION BY id ORDER BY pos) AS copy
    FROM submitted_answers
)
SELECT
    pos,
    id,
    CASE WHEN id IN (SELECT id FROM answers) THEN 'repeated id' ELSE 'unknown id' END AS reason
FROM copies
WHERE copy > 1 OR id NOT IN (SELECT id FROM answers)
ORDER BY pos;
