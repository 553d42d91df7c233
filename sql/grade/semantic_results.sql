-- docs/format.md §11: per gold record and field of the graded split (the records and fields
-- the gold excludes are not there, so not graded): the gold label(s), the submitted ones
-- (NULL where the submission has no valid answer) and whether they are the same set.
CREATE OR REPLACE TABLE semantic_results AS
SELECT
    u.record_index, g.id, r.field_index, g.field, list_sort(g.gold) AS gold,
    list_sort(a.labels) AS submitted,
    coalesce(list_sort(a.labels) = list_sort(g.gold), false) AS correct
FROM semantic_gold AS g
JOIN packet_units AS u USING (id)
JOIN (SELECT DISTINCT field_index, field FROM semantic_rubric) AS r USING (field)
LEFT JOIN semantic_answers AS a ON a.id = g.id AND a.field = g.field AND a.invalid IS NULL
ORDER BY u.record_index, r.field_index;
