-- One row per run of `s8f-duck run`: what ran, on which corpus and split, what it cost,
-- how it ended, and the grade's core fields (NULL when it was not graded). Source: the
-- runner's run_meta (one row) and, for a graded run, the grade table.
CREATE TABLE IF NOT EXISTS runs.runs (
    run_id VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    command VARCHAR[] NOT NULL,
    candidate_sha256 VARCHAR,
    public_sha256 VARCHAR NOT NULL,
    answers_sha256 VARCHAR NOT NULL,
    split VARCHAR NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ NOT NULL,
    wall_seconds DOUBLE,
    cpu_seconds DOUBLE,
    peak_memory_bytes BIGINT,
    exit_status INTEGER,
    outcome VARCHAR NOT NULL,
    limit_hit VARCHAR,
    message VARCHAR,
    time_limit_seconds DOUBLE,
    memory_limit_bytes BIGINT,
    limits_enforced_by VARCHAR,
    endpoints VARCHAR[],
    graded_records BIGINT,
    exact_records BIGINT,
    false_positive_facts BIGINT,
    false_negative_facts BIGINT,
    aggregate_errors BIGINT,
    citation_errors BIGINT,
    quality_pass BOOLEAN,
    aggregates_graded BOOLEAN,
    run_dir VARCHAR NOT NULL
);
INSERT INTO runs.runs
SELECT
    meta.run_id, meta.name, meta.command, meta.candidate_sha256, meta.public_sha256, meta.answers_sha256,
    meta.split, meta.started_at, meta.ended_at, meta.wall_seconds, meta.cpu_seconds, meta.peak_memory_bytes,
    meta.exit_status, meta.outcome, meta.limit_hit, meta.message, meta.time_limit_seconds,
    meta.memory_limit_bytes, meta.limits_enforced_by, meta.endpoints,
    grade.test_records, grade.exact_records, grade.false_positive_facts, grade.false_negative_facts,
    grade.aggregate_errors, grade.citation_errors, grade.quality_pass,
    CASE WHEN grade.schema IS NOT NULL THEN meta.split = 'test' END,
    meta.run_dir
FROM run_meta AS meta
LEFT JOIN grade ON true;
