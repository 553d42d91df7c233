-- The service's public leaderboard: per team, the best score it was shown on the test
-- split (the Ladder's), how many submissions it made, and when it last improved. Nothing
-- finer: per-slice or per-record figures on the test split would leak the answers.
CREATE OR REPLACE TABLE leaderboard AS
SELECT
    team,
    max(shown_score) FILTER (WHERE split = 'test') AS score,
    count(*) AS submissions,
    count(*) FILTER (WHERE split = 'test') AS test_submissions,
    max(received_at) FILTER (WHERE improved) AS improved_at,
    max(received_at) AS last_submission_at
FROM service.submissions
WHERE status = 'graded'
GROUP BY team
ORDER BY score DESC NULLS LAST, improved_at, team;
