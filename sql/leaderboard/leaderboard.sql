-- The leaderboard: one row per run, ranked within its group (the runs on the same corpus
-- and split: runs of different corpora are not ranked against each other) by F1 over all
-- facts (graded runs first), then exact records, then the earlier start; position orders
-- the groups, then the ranks within each. With that F1, its interval, and the start time
-- as UTC text.
CREATE OR REPLACE TABLE leaderboard AS
SELECT
    row_number() OVER (
        PARTITION BY runs.group_id
        ORDER BY runs.graded DESC, scores.f1 DESC NULLS LAST, runs.exact_records DESC NULLS LAST, runs.run_index
    )::INTEGER AS rank,
    row_number() OVER (
        ORDER BY runs.group_id, runs.graded DESC, scores.f1 DESC NULLS LAST, runs.exact_records DESC NULLS LAST,
            runs.run_index
    )::INTEGER AS position,
    runs.*,
    strftime(runs.started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS started_utc,
    scores.precision AS all_precision, scores.recall AS all_recall,
    scores.f1 AS all_f1, scores.f1_low AS all_f1_low, scores.f1_high AS all_f1_high
FROM leaderboard_runs AS runs
LEFT JOIN score_intervals AS scores ON scores.run_index = runs.run_index AND scores.scope = 'slice' AND scores.key = 'all'
ORDER BY position;
