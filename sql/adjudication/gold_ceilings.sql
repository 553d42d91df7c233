-- docs/adjudication.md: per field and split, the ceiling a candidate graded on the gold
-- can be held to, measured on the records graded (adjudicator_ceilings.sql: each
-- adjudicator left out in turn): the best person's accuracy and interval where people
-- adjudicated, else the mean of the adjudicators' (its interval the percentiles of the
-- resamples' means); NULL with a note where no adjudicator could be graded against
-- others. Beside it the gold's coverage (records kept / packet records of the split) and
-- the field's alpha (agreement.sql's point).
CREATE OR REPLACE TABLE gold_ceilings AS
WITH splits AS (
    SELECT split, min(record_index) AS first_record, count(*) AS packet_records FROM packet_units GROUP BY split
),
kept AS (SELECT field, split, count(gold) AS gold_records FROM gold_labels GROUP BY ALL),
best_person AS (
    SELECT * FROM adjudicator_ceilings WHERE kind = 'person'
    QUALIFY row_number() OVER (PARTITION BY field, split ORDER BY accuracy DESC, adjudicator) = 1
),
means AS (
    SELECT field, split, round(avg(accuracy), 6) AS accuracy, count(*) AS measured
    FROM adjudicator_ceilings GROUP BY ALL
),
mean_bounds AS (
    SELECT field, split, quantile_cont(accuracy, [0.025, 0.975]) AS bounds
    FROM (SELECT resample, field, split, avg(accuracy) AS accuracy FROM adjudicator_ceiling_resamples
          WHERE resample > 0 GROUP BY ALL)
    GROUP BY ALL
)
SELECT
    f.field, s.split, a.value AS alpha, s.packet_records, coalesce(k.gold_records, 0) AS gold_records,
    round(coalesce(k.gold_records, 0) / s.packet_records, 6) AS coverage,
    coalesce(b.accuracy, m.accuracy) AS ceiling,
    coalesce(b.accuracy_low, round(least(mb.bounds[1], m.accuracy), 6)) AS ceiling_low,
    coalesce(b.accuracy_high, round(greatest(mb.bounds[2], m.accuracy), 6)) AS ceiling_high,
    CASE WHEN b.adjudicator IS NOT NULL THEN 'best person: ' || b.adjudicator
        WHEN m.measured > 0 THEN 'mean of ' || m.measured || ' adjudicators' END AS ceiling_basis,
    CASE WHEN m.measured IS NULL
        THEN 'cannot be measured: no adjudicator has labels the others decide on this split' END AS note
FROM rubric_fields AS f
CROSS JOIN splits AS s
LEFT JOIN kept AS k ON k.field = f.field AND k.split = s.split
LEFT JOIN agreement AS a ON a.field = f.field AND a.statistic = 'alpha'
LEFT JOIN means AS m ON m.field = f.field AND m.split = s.split
LEFT JOIN mean_bounds AS mb ON mb.field = f.field AND mb.split = s.split
LEFT JOIN best_person AS b ON b.field = f.field AND b.split = s.split
ORDER BY f.field_index, s.first_record;
