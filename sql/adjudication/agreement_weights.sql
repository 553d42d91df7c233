-- docs/adjudication.md: the bootstrap over the packet's records. Resample 0 is the packet
-- itself (each record once: the point estimates); resample r >= 1 draws as many records
-- as the packet holds, with replacement: draw d is record hash(seed, r, d) mod records, so
-- the same seed gives the same draws (DuckDB's hash is fixed within a version).
CREATE OR REPLACE TABLE agreement_weights AS
SELECT 0 AS resample, record_index, 1 AS weight FROM packet_units
UNION ALL
SELECT resample, record_index, count(*)::INTEGER AS weight
FROM (
    SELECT
        (resamples.range + 1)::INTEGER AS resample,
        (hash(getvariable('agreement_seed')::BIGINT, resamples.range, draw.range) % n.records)::INTEGER AS record_index
    FROM (SELECT count(*)::UBIGINT AS records FROM packet_units) AS n
    CROSS JOIN range(getvariable('agreement_resamples')::BIGINT) AS resamples
    CROSS JOIN range((SELECT count(*) FROM packet_units)::BIGINT) AS draw
)
GROUP BY ALL;
