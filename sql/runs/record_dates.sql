-- Per public corpus graded by some run, each record's creation time (once per corpus: the
-- first run on it records them), for the leaderboard's scores before and after a model's
-- training cutoff and by creation month. Source: run_dates (the runner's, from the corpus).
CREATE TABLE IF NOT EXISTS runs.record_dates (
    public_sha256 VARCHAR NOT NULL,
    id VARCHAR NOT NULL,
    number BIGINT,
    created_at VARCHAR NOT NULL,
    created TIMESTAMPTZ NOT NULL
);
INSERT INTO runs.record_dates
SELECT meta.public_sha256, dates.id, dates.number, dates.created_at, dates.created_at::TIMESTAMPTZ
FROM run_dates AS dates
CROSS JOIN (SELECT public_sha256 FROM run_meta) AS meta
WHERE NOT EXISTS (SELECT 1 FROM runs.record_dates AS known WHERE known.public_sha256 = meta.public_sha256)
ORDER BY dates.number;
