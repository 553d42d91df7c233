-- Per graded run whose model's training cutoff is recorded (run --model-cutoff, runs
-- --set-cutoff: the latest counts): the cutoff as given and as an instant.
CREATE OR REPLACE TABLE clock_cutoffs AS
WITH latest AS (
    SELECT * FROM runs.run_clock
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY set_at DESC) = 1
)
SELECT runs.run_index, runs.group_id, runs.run_id, latest.model_cutoff, latest.model_cutoff_at
FROM leaderboard_runs AS runs
JOIN latest USING (run_id)
WHERE runs.graded AND latest.model_cutoff_at IS NOT NULL
ORDER BY runs.run_index;
