-- The records each clock score is taken on, per graded run: for a run with a cutoff
-- (clock_cutoffs), 'before' (created before it) and 'after' (at or after it); for every
-- graded run on a corpus with record dates, each creation month ('2026-07').
CREATE OR REPLACE TABLE clock_cells AS
SELECT cutoffs.run_index, CASE WHEN records.created < cutoffs.model_cutoff_at THEN 'before' ELSE 'after' END AS cell,
    records.record_index
FROM clock_cutoffs AS cutoffs
JOIN clock_records AS records USING (group_id)
UNION ALL
SELECT runs.run_index, records.month, records.record_index
FROM leaderboard_runs AS runs
JOIN clock_records AS records USING (group_id)
WHERE runs.graded;
