-- The window's bootstrap: per resample 0..window_resamples-1, how many times each window
-- record (record_index) was drawn, as many draws as records; draw d of resample r is
-- record hash(window_seed, r, d) mod records, as the leaderboard draws (resample_weights).
CREATE OR REPLACE TABLE window_weights AS
WITH n AS (SELECT count(DISTINCT record_index)::UBIGINT AS records FROM window_record_slices)
SELECT
    resamples.range::INTEGER AS resample,
    (hash(getvariable('window_seed')::BIGINT, resamples.range, draw.range) % n.records)::INTEGER AS record_index,
    count(*)::INTEGER AS weight
FROM n
CROSS JOIN range(getvariable('window_resamples')::BIGINT) AS resamples
CROSS JOIN range(n.records::BIGINT) AS draw
WHERE n.records > 0
GROUP BY ALL;
