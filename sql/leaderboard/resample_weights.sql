-- The bootstrap: per group and resample 0..resamples-1, how many times each graded
-- record was drawn (records drawn with replacement, as many as the group has). Draw d of
-- resample r is record hash(seed, r, d) mod records: the same seed gives the same draws
-- (DuckDB's hash is fixed within a version), and records never drawn have no row.
CREATE OR REPLACE TABLE resample_weights AS
WITH groups AS (SELECT DISTINCT group_id, records::UBIGINT AS records FROM graded_records),
draws AS (
    SELECT
        groups.group_id, resamples.range AS resample,
        -- UBIGINT on both sides: a mixed modulo is computed in 128 bits, ten times slower
        hash(getvariable('leaderboard_seed')::BIGINT, resamples.range, draw.range) % groups.records AS record_index
    FROM groups
    CROSS JOIN range(getvariable('leaderboard_resamples')::BIGINT) AS resamples
    JOIN range((SELECT max(records) FROM groups)::BIGINT) AS draw ON draw.range < groups.records
)
SELECT group_id, resample::INTEGER AS resample, record_index::INTEGER AS record_index, count(*)::INTEGER AS weight
FROM draws
GROUP BY ALL;
