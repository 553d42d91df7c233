-- Beyond the reference, for the tuning loop: a tune or train grade lists its wrong facts
-- themselves (record, slice, fact, false positive or negative), the first 50 by record
-- number, slice and fact, with their count. The held-out test grade keeps its bytes: no
-- rows on the test split.
CREATE OR REPLACE TABLE wrong_facts AS
WITH numbered AS (
    SELECT
        submission, id, slice, fact, kind,
        row_number() OVER (PARTITION BY submission ORDER BY id_number(id), id, slice, fact) AS position,
        count(*) OVER (PARTITION BY submission) AS total
    FROM fact_errors
    WHERE graded_split() <> 'test'
)
SELECT
    submission, any_value(total) AS count,
    list({'id': id, 'slice': slice, 'fact': fact, 'kind': kind} ORDER BY position) AS first
FROM numbered
WHERE position <= 50
GROUP BY submission
ORDER BY submission;
