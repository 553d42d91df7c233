-- The leaderboard: one row per run, ranked within its group (the runs on the same corpus
-- and split: runs of different corpora are not ranked against each other) on the score
-- ranked by (rank_groups: runs the paired bootstrap does not separate share a rank), the
-- runs without a value of it after (by start); position orders the groups, then the runs
-- by rank, value, exact records and start. With the ranked value, its interval and n, F1
-- over all facts with its interval, and the start time as UTC text.
CREATE OR REPLACE TABLE leaderboard AS
WITH ordered AS (
    SELECT
        runs.*, ranks.rank AS ranked_rank, coalesce(ranks.shared, false) AS rank_shared,
        ranks.value AS ranked_value, ranks.low AS ranked_low, ranks.high AS ranked_high, ranks.n AS ranked_n,
        ranks.too_few AS ranked_too_few,
        count(ranks.rank) OVER (PARTITION BY runs.group_id) AS ranked_runs,
        row_number() OVER (
            PARTITION BY runs.group_id
            ORDER BY ranks.rank NULLS LAST, ranks.value DESC NULLS LAST, runs.graded DESC,
                runs.exact_records DESC NULLS LAST, runs.run_index
        ) AS place
    FROM leaderboard_runs AS runs
    LEFT JOIN rank_groups AS ranks USING (run_index)
)
SELECT
    coalesce(ordered.ranked_rank, ordered.place)::INTEGER AS rank,
    row_number() OVER (ORDER BY ordered.group_id, ordered.place)::INTEGER AS position,
    ordered.* EXCLUDE (ranked_rank, ranked_runs, place),
    strftime(ordered.started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS started_utc,
    scores.precision AS all_precision, scores.recall AS all_recall,
    scores.f1 AS all_f1, scores.f1_low AS all_f1_low, scores.f1_high AS all_f1_high
FROM ordered
LEFT JOIN score_intervals AS scores ON scores.run_index = ordered.run_index AND scores.scope = 'slice' AND scores.key = 'all'
ORDER BY position;
