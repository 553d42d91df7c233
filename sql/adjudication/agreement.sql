-- docs/adjudication.md: the agreement figures, one row per field and statistic (raw
-- agreement and kappa per pair, alpha over all): the point (resample 0), and its 95%
-- percentile bootstrap interval over the resamples where it is defined.
CREATE OR REPLACE TABLE agreement AS
WITH figures AS (
    SELECT resample, field, 'raw agreement' AS statistic, a || ' ~ ' || b AS adjudicators, n, raw_agreement AS value
    FROM pair_agreement
    UNION ALL
    SELECT resample, field, 'kappa', a || ' ~ ' || b, n, kappa FROM pair_agreement
    UNION ALL
    SELECT resample, field, 'alpha', 'all', NULL, alpha FROM field_alpha
),
intervals AS (
    SELECT field, statistic, adjudicators, quantile_cont(value, [0.025, 0.975]) AS bounds, count(value) AS resamples
    FROM figures WHERE resample > 0 AND value IS NOT NULL
    GROUP BY ALL
)
SELECT
    p.field, p.statistic, p.adjudicators, p.n::BIGINT AS records, round(p.value, 6) AS value,
    round(least(i.bounds[1], p.value), 6) AS low, round(greatest(i.bounds[2], p.value), 6) AS high,
    coalesce(i.resamples, 0) AS resamples
FROM figures AS p LEFT JOIN intervals AS i USING (field, statistic, adjudicators)
WHERE p.resample = 0
ORDER BY p.field, CASE p.statistic WHEN 'alpha' THEN 0 WHEN 'kappa' THEN 1 ELSE 2 END, p.adjudicators;
