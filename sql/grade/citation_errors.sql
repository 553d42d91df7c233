-- docs/format.md §8: one citation error per submitted answer whose id the bundle does not know
-- (ids are case-sensitive; '' is unknown) or that repeats an id submitted earlier (a later
-- copy than the id's first: found by grouping, cheaper than numbering every copy).
CREATE OR REPLACE TABLE citation_errors AS
WITH repeated AS (
    SELECT id, min(pos) AS first_pos FROM submitted_answers GROUP BY id HAVING count(*) > 1
)
SELECT
    pos,
    id,
    CASE WHEN id IN (SELECT id FROM answers) THEN 'repeated id' ELSE 'unknown id' END AS reason
FROM submitted_answers
LEFT JOIN repeated USING (id)
WHERE pos > repeated.first_pos OR id NOT IN (SELECT id FROM answers)
ORDER BY pos;
