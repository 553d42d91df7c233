-- docs/format.md §8: one citation error per submitted answer whose id the bundle does not know
-- (ids are case-sensitive; '' is unknown) or that repeats an id submitted earlier (a later
-- copy than the id's first: submitted_repeats).
CREATE OR REPLACE TABLE citation_errors AS
SELECT
    submission,
    pos,
    id,
    CASE WHEN id IN (SELECT id FROM answers) THEN 'repeated id' ELSE 'unknown id' END AS reason
FROM submitted_answers
LEFT JOIN submitted_repeats AS repeated USING (submission, id)
WHERE pos > repeated.first_pos OR id NOT IN (SELECT id FROM answers)
ORDER BY submission, pos;
