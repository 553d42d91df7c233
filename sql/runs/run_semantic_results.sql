-- Per run graded on a semantic answer bundle, gold record and field: the gold label(s),
-- the submitted ones and whether they are the same set: what the leaderboard resamples.
CREATE TABLE IF NOT EXISTS runs.run_semantic_results (
    run_id VARCHAR NOT NULL,
    id VARCHAR NOT NULL,
    field VARCHAR NOT NULL,
    gold VARCHAR[],
    submitted VARCHAR[],
    correct BOOLEAN
);
INSERT INTO runs.run_semantic_results
SELECT (SELECT run_id FROM run_meta), id, field, gold, submitted, correct
FROM semantic_results
ORDER BY id, field;
