-- Per run with a semantic grade: its accuracy on each adjudicated field ('adjudicated:<field>')
-- and over every field ('adjudicated') on all its graded records, with n, the records
-- graded on it (the size an interval of it rests on).
CREATE OR REPLACE TABLE semantic_points AS
WITH results AS (
    SELECT r.run_index, x.id, x.field, x.correct::INTEGER AS correct
    FROM runs.run_semantic_results AS x
    JOIN leaderboard_runs AS r USING (run_id)
    WHERE r.graded
)
SELECT run_index, 'adjudicated:' || field AS key, avg(correct) AS value, count(DISTINCT id)::BIGINT AS n
FROM results GROUP BY ALL
UNION ALL
SELECT run_index, 'adjudicated', avg(correct), count(DISTINCT id)::BIGINT FROM results GROUP BY ALL;
