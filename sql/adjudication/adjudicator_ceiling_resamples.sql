-- docs/adjudication.md: per resample, field, split and adjudicator, that adjudicator graded as a
-- candidate is, on the records the gold keeps (gold_labels), against the gold the same
-- policy (getvariable('gold_policy')) makes from the *other* adjudicators (leave one out;
-- one other's label is their gold; the resolver decides where they find none). Over the
-- kept records the adjudicator labelled and the others decide: the accuracy and its 95%
-- percentile bootstrap interval over agreement_weights' resamples (widened to contain its
-- point), as the semantic grade's; the accuracy per resample is kept
-- (adjudicator_ceiling_resamples) for the interval of gold_ceilings.sql's mean.
CREATE OR REPLACE TABLE adjudicator_ceiling_resamples AS
WITH others AS (
    SELECT x.adjudicator AS left_out, l.id, l.field, l.value, count(*) AS votes
    FROM adjudicators AS x JOIN adjudicated_labels AS l ON l.adjudicator <> x.adjudicator
    GROUP BY ALL
),
labelled AS (
    SELECT left_out, id, field, sum(votes) AS adjudicators, count(*) AS distinct_labels FROM others GROUP BY ALL
),
decided AS (
    SELECT o.left_out, o.id, o.field, o.value
    FROM others AS o JOIN labelled AS l USING (left_out, id, field)
    WHERE CASE getvariable('gold_policy')
        WHEN 'unanimous' THEN l.distinct_labels = 1
        WHEN 'majority' THEN o.votes * 2 > l.adjudicators
    END
),
scored AS (
    SELECT
        x.adjudicator, x.kind, g.split, g.field_index, g.field, g.record_index,
        (l.value = coalesce(d.value, r.value))::INTEGER AS correct
    FROM gold_labels AS g
    JOIN adjudicated_labels AS l ON l.id = g.id AND l.field = g.field
    JOIN adjudicators AS x ON x.adjudicator = l.adjudicator
    LEFT JOIN decided AS d ON d.left_out = l.adjudicator AND d.id = g.id AND d.field = g.field
    LEFT JOIN resolver_labels AS r ON r.id = g.id AND r.field = g.field
    WHERE g.gold IS NOT NULL AND coalesce(d.value, r.value) IS NOT NULL
)
SELECT
    w.resample, s.adjudicator, any_value(s.kind) AS kind, s.split, s.field_index, s.field,
    sum(w.weight) AS records, sum(w.weight * s.correct) / sum(w.weight) AS accuracy
FROM scored AS s JOIN agreement_weights AS w USING (record_index)
GROUP BY w.resample, s.adjudicator, s.split, s.field_index, s.field;
