-- The month chart: per group (corpus and split), graded run and creation month with
-- records, the records created that month and the run's primary score on them.
CREATE OR REPLACE TABLE clock_months AS
SELECT runs.group_id, runs.run_index, runs.run_id, points.cell AS month, points.records, points.primary_score
FROM clock_points AS points
JOIN leaderboard_runs AS runs USING (run_index)
WHERE points.cell NOT IN ('before', 'after')
ORDER BY runs.group_id, runs.run_index, month;
