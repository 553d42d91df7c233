-- docs/adjudication.md: the gold label of every packet record and rubric field, or why
-- there is none. Where two or more adjudicators labelled it, the policy
-- (getvariable('gold_policy')) decides: 'unanimous' takes the label all of them gave,
-- 'majority' the label more than half of them gave (a set-valued field's set compared
-- whole). Where the policy finds none, the resolver's label (resolver_labels) decides if
-- there is one; else the record and field are excluded, with the reason.
CREATE OR REPLACE TABLE gold_labels AS
WITH votes AS (
    SELECT id, field, value, any_value(labels) AS labels, count(*) AS votes FROM adjudicated_labels GROUP BY ALL
),
labelled AS (
    SELECT id, field, sum(votes) AS adjudicators, count(*) AS distinct_labels FROM votes GROUP BY ALL
),
decided AS (
    SELECT v.id, v.field, v.labels
    FROM votes AS v JOIN labelled AS l USING (id, field)
    WHERE l.adjudicators >= 2 AND CASE getvariable('gold_policy')
        WHEN 'unanimous' THEN l.distinct_labels = 1
        WHEN 'majority' THEN v.votes * 2 > l.adjudicators
    END
)
SELECT
    u.record_index, u.id, u.split, f.field_index, f.field,
    coalesce(d.labels, r.labels) AS gold,
    CASE WHEN d.id IS NOT NULL THEN 'adjudicators' WHEN r.id IS NOT NULL THEN 'resolver' END AS decided_by,
    CASE
        WHEN d.id IS NOT NULL OR r.id IS NOT NULL THEN NULL
        WHEN coalesce(l.adjudicators, 0) < 2 THEN 'fewer than two labels'
        WHEN getvariable('gold_policy') = 'unanimous' THEN 'not unanimous'
        ELSE 'no majority'
    END AS excluded
FROM packet_units AS u
CROSS JOIN rubric_fields AS f
LEFT JOIN decided AS d ON d.id = u.id AND d.field = f.field
LEFT JOIN resolver_labels AS r ON r.id = u.id AND r.field = f.field
LEFT JOIN labelled AS l ON l.id = u.id AND l.field = f.field
ORDER BY u.record_index, f.field_index;
