-- Per graded run with a value of the score ranked by (getvariable('leaderboard_rank_by')):
-- its rank within its group, 1 + the runs the paired bootstrap puts above it (run_pairs:
-- an interval of the difference that excludes zero). Runs no pair separates share a rank
-- (`shared`), so two identical submissions rank alike instead of 1 and 2.
CREATE OR REPLACE TABLE rank_groups AS
WITH ranked AS (
    SELECT run_index, group_id, value, low, high, n, too_few
    FROM rankable_points
    WHERE key = getvariable('leaderboard_rank_by') AND value IS NOT NULL
),
below AS (  -- per pair separated, the run below
    SELECT CASE WHEN low > 0 THEN b ELSE a END AS run_index
    FROM run_pairs
    WHERE key = getvariable('leaderboard_rank_by') AND separated
),
above AS (SELECT run_index, count(*) AS above FROM below GROUP BY run_index),
ranks AS (
    SELECT ranked.*, (1 + coalesce(above.above, 0))::INTEGER AS rank FROM ranked LEFT JOIN above USING (run_index)
)
SELECT *, count(*) OVER (PARTITION BY group_id, rank) > 1 AS shared
FROM ranks
ORDER BY group_id, rank, value DESC, run_index;
