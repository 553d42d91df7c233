-- docs/adjudication.md: per field, split and adjudicator, the leave-one-out accuracy of
-- adjudicator_ceiling_resamples.sql: the records graded, the point (resample 0) and its
-- 95% percentile bootstrap interval, widened where needed to contain the point.
CREATE OR REPLACE TABLE adjudicator_ceilings AS
WITH intervals AS (
    SELECT adjudicator, split, field, quantile_cont(accuracy, [0.025, 0.975]) AS bounds
    FROM adjudicator_ceiling_resamples WHERE resample > 0
    GROUP BY ALL
)
SELECT
    p.field_index, p.field, p.split, p.adjudicator, p.kind, p.records::BIGINT AS records,
    round(p.accuracy, 6) AS accuracy, round(least(i.bounds[1], p.accuracy), 6) AS accuracy_low,
    round(greatest(i.bounds[2], p.accuracy), 6) AS accuracy_high
FROM adjudicator_ceiling_resamples AS p LEFT JOIN intervals AS i USING (adjudicator, split, field)
WHERE p.resample = 0
ORDER BY p.field_index, (SELECT min(record_index) FROM packet_units AS u WHERE u.split = p.split), p.adjudicator;
