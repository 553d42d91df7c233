-- Per run, every request a candidate made to an allowed endpoint through the runner's
-- proxy: when, what, the answer's status and size, latency, and the token counts of an
-- OpenAI-compatible `usage` object (NULL when the response had none).
CREATE TABLE IF NOT EXISTS runs.run_requests (
    run_id VARCHAR NOT NULL,
    seq BIGINT NOT NULL,
    endpoint VARCHAR NOT NULL,
    requested_at TIMESTAMPTZ NOT NULL,
    method VARCHAR,
    path VARCHAR,
    status INTEGER,
    request_bytes BIGINT,
    response_bytes BIGINT,
    latency_ms DOUBLE,
    prompt_tokens BIGINT,
    completion_tokens BIGINT,
    total_tokens BIGINT
);
INSERT INTO runs.run_requests
SELECT (SELECT run_id FROM run_meta), * EXCLUDE (model)
FROM run_request_log
ORDER BY seq;
