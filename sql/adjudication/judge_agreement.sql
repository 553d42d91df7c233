-- docs/adjudication.md: per field and model adjudicator, is the model as close to the
-- people as they are to each other? Its Cohen's kappa with the person adjudicators (the
-- mean over the persons of each pair's kappa, pair_agreement.sql: over the records both
-- labelled) beside the persons' own agreement (the mean kappa over pairs of persons),
-- each with its 95% percentile bootstrap interval (widened to contain its point).
-- as_well_as_people: the model's point is at least the persons'; clearly_below: the
-- model's interval lies wholly below the persons' point. NULL where there is no person
-- to compare with (or no pair of persons).
CREATE OR REPLACE TABLE judge_agreement AS
WITH pairs AS (
    SELECT p.resample, p.field, p.a, p.b, p.kappa, ka.kind AS kind_a, kb.kind AS kind_b
    FROM pair_agreement AS p
    JOIN adjudicators AS ka ON ka.adjudicator = p.a
    JOIN adjudicators AS kb ON kb.adjudicator = p.b
),
with_people AS (
    SELECT resample, field, CASE WHEN kind_a = 'model' THEN a ELSE b END AS model, avg(kappa) AS kappa,
        count(*) AS people
    FROM pairs WHERE (kind_a = 'model' AND kind_b = 'person') OR (kind_a = 'person' AND kind_b = 'model')
    GROUP BY ALL
),
among_people AS (
    SELECT resample, field, avg(kappa) AS kappa, count(*) AS pairs
    FROM pairs WHERE kind_a = 'person' AND kind_b = 'person'
    GROUP BY ALL
),
model_bounds AS (
    SELECT field, model, quantile_cont(kappa, [0.025, 0.975]) AS bounds
    FROM with_people WHERE resample > 0 AND kappa IS NOT NULL GROUP BY ALL
),
people_bounds AS (
    SELECT field, quantile_cont(kappa, [0.025, 0.975]) AS bounds
    FROM among_people WHERE resample > 0 AND kappa IS NOT NULL GROUP BY ALL
),
models AS (
    SELECT f.field_index, f.field, a.adjudicator AS model
    FROM rubric_fields AS f CROSS JOIN adjudicators AS a WHERE a.kind = 'model'
)
SELECT
    m.field, m.model, coalesce(w.people, 0) AS people, round(w.kappa, 6) AS kappa_with_people,
    round(least(mb.bounds[1], w.kappa), 6) AS kappa_with_people_low,
    round(greatest(mb.bounds[2], w.kappa), 6) AS kappa_with_people_high,
    round(p.kappa, 6) AS people_kappa, round(least(pb.bounds[1], p.kappa), 6) AS people_kappa_low,
    round(greatest(pb.bounds[2], p.kappa), 6) AS people_kappa_high,
    w.kappa >= p.kappa AS as_well_as_people,
    greatest(mb.bounds[2], w.kappa) < p.kappa AS clearly_below
FROM models AS m
LEFT JOIN with_people AS w ON w.resample = 0 AND w.field = m.field AND w.model = m.model
LEFT JOIN among_people AS p ON p.resample = 0 AND p.field = m.field
LEFT JOIN model_bounds AS mb ON mb.field = m.field AND mb.model = m.model
LEFT JOIN people_bounds AS pb ON pb.field = m.field
ORDER BY m.field_index, m.model;
