-- One row per recorded run: what it is, how it ended, its grade and its cost, with its
-- endpoint requests and tokens summed; its index (in the order the runs started); and
-- its group: the runs on the same corpus (both digests) and graded split, which are
-- resampled on the same records and so can be compared. With leaderboard_latest, only the
-- newest run of each name.
CREATE OR REPLACE TABLE leaderboard_runs AS
WITH requests AS (
    SELECT
        run_id, count(*) AS requests, sum(prompt_tokens)::BIGINT AS prompt_tokens,
        sum(completion_tokens)::BIGINT AS completion_tokens, sum(total_tokens)::BIGINT AS total_tokens
    FROM runs.run_requests
    GROUP BY run_id
)
SELECT
    row_number() OVER (ORDER BY runs.started_at, runs.run_id)::INTEGER AS run_index,
    dense_rank() OVER (ORDER BY runs.public_sha256, runs.answers_sha256, runs.split)::INTEGER AS group_id,
    runs.run_id IN (SELECT run_id FROM runs.run_records) AS graded,
    runs.run_id, runs.name, runs.command, runs.split, runs.public_sha256, runs.answers_sha256,
    runs.started_at, runs.ended_at, runs.outcome, runs.message, runs.limit_hit, runs.exit_status,
    runs.quality_pass, runs.graded_records, runs.exact_records, runs.false_positive_facts,
    runs.false_negative_facts, runs.aggregate_errors, runs.citation_errors, runs.aggregates_graded,
    runs.wall_seconds, runs.cpu_seconds, runs.peak_memory_bytes, runs.time_limit_seconds, runs.memory_limit_bytes,
    coalesce(requests.requests, 0) AS requests, requests.prompt_tokens, requests.completion_tokens,
    requests.total_tokens
FROM runs.runs AS runs
LEFT JOIN requests USING (run_id)
WHERE NOT coalesce(getvariable('leaderboard_latest'), false) OR runs.run_id IN (  -- --latest: the newest run of each name
    SELECT run_id FROM runs.runs QUALIFY row_number() OVER (PARTITION BY name ORDER BY started_at DESC, run_id DESC) = 1
)
ORDER BY run_index;
