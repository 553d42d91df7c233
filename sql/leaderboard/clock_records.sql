-- Per group and graded record (graded_records): its creation time and month (UTC) from the
-- runs database's record_dates of the group's corpus: the clock the scores before and
-- after a model's cutoff and by month are read on.
CREATE OR REPLACE TABLE clock_records AS
WITH corpora AS (SELECT DISTINCT group_id, public_sha256 FROM leaderboard_runs)
SELECT
    records.group_id, records.id, records.record_index, dates.created,
    strftime(timezone('UTC', dates.created), '%Y-%m') AS month
FROM graded_records AS records
JOIN corpora USING (group_id)
JOIN runs.record_dates AS dates ON dates.public_sha256 = corpora.public_sha256 AND dates.id = records.id
ORDER BY records.group_id, records.record_index;
