-- docs/format.md §11: per resample (agreement_weights.sql over the graded records; resample
-- 0 is the records themselves), field and rubric label: the true positives (given and in
-- the gold), false positives (given, not in the gold) and false negatives (in the gold,
-- not given), each record weighted by how often the resample drew it.
CREATE OR REPLACE TABLE semantic_label_counts AS
WITH drawn AS (
    SELECT w.resample, w.weight, r.field, coalesce(r.submitted, []) AS submitted, r.gold
    FROM semantic_results AS r JOIN agreement_weights AS w USING (record_index)
)
SELECT
    d.resample, d.field, l.label_index, l.label,
    coalesce(sum(d.weight) FILTER (WHERE list_contains(d.submitted, l.label) AND list_contains(d.gold, l.label)), 0)
        AS tp,
    coalesce(sum(d.weight) FILTER (WHERE list_contains(d.submitted, l.label) AND NOT list_contains(d.gold, l.label)), 0)
        AS fp,
    coalesce(sum(d.weight) FILTER (WHERE NOT list_contains(d.submitted, l.label) AND list_contains(d.gold, l.label)), 0)
        AS fn
FROM drawn AS d JOIN semantic_rubric AS l USING (field)
GROUP BY ALL
ORDER BY d.resample, d.field, l.label_index;
