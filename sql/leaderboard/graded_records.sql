-- Per group of runs (leaderboard_runs), its graded records, numbered 0..records-1 by
-- issue number: the bootstrap draws these indexes, so every run of a group is resampled
-- on the same records, and a run added later does not change the draws.
CREATE OR REPLACE TABLE graded_records AS
WITH graded AS (
    SELECT DISTINCT runs.group_id, records.id, records.number
    FROM runs.run_records AS records
    JOIN leaderboard_runs AS runs USING (run_id)
)
SELECT
    group_id, id, number,
    (row_number() OVER (PARTITION BY group_id ORDER BY number, id) - 1)::INTEGER AS record_index,
    count(*) OVER (PARTITION BY group_id)::INTEGER AS records
FROM graded
ORDER BY group_id, record_index;
