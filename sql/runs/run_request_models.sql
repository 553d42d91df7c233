-- Per run and request through the runner's proxy (run_requests' seq): the `model` an
-- OpenAI-compatible request body named (NULL: none), which the leaderboard compares with
-- the model adjudicators of the semantic bundle the run was graded on (self-preference).
CREATE TABLE IF NOT EXISTS runs.run_request_models (
    run_id VARCHAR NOT NULL,
    seq BIGINT NOT NULL,
    model VARCHAR
);
INSERT INTO runs.run_request_models
SELECT (SELECT run_id FROM run_meta), seq, model
FROM run_request_log
ORDER BY seq;
