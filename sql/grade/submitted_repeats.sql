-- docs/format.md §8: the ids a submission repeats, with the positions of their first and last
-- copies. Every later copy is a citation error (citation_errors); only the last copy is
-- compared (last_copies). One pass over the submissions' ids serves both: a submission
-- rarely repeats an id, so what joins this table builds almost nothing.
CREATE OR REPLACE TABLE submitted_repeats AS
SELECT submission, id, min(pos) AS first_pos, max(pos) AS last_pos
FROM submitted_answers
GROUP BY submission, id
HAVING count(*) > 1;
