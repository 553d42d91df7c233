-- docs/format.md §11: the submission's semantic answers as graded: of the entries that
-- repeat a record and field the last copy (as for the S8f answers), each checked against
-- the rubric; an entry with an unknown field, a label outside the field's values, no
-- label, a label twice, or two labels for a one-label field is invalid (kept, with its
-- reason, and graded as no answer).
CREATE OR REPLACE TABLE semantic_answers AS
WITH last_copies AS (
    SELECT * FROM semantic_entries
    QUALIFY row_number() OVER (PARTITION BY id, field ORDER BY position DESC) = 1
),
fields AS (SELECT DISTINCT field, multi FROM semantic_rubric)
SELECT
    e.position, e.id, e.field, e.labels,
    CASE
        WHEN f.field IS NULL THEN 'unknown field'
        WHEN e.labels IS NULL OR len(e.labels) = 0 THEN 'no label'
        WHEN len(list_distinct(e.labels)) < len(e.labels) THEN 'a label twice'
        WHEN NOT f.multi AND len(e.labels) > 1 THEN 'more than one label'
        WHEN EXISTS (
            SELECT 1 FROM unnest(e.labels) AS given(label)
            WHERE given.label NOT IN (SELECT r.label FROM semantic_rubric AS r WHERE r.field = e.field)
        ) THEN 'a label outside the rubric'
    END AS invalid
FROM last_copies AS e
LEFT JOIN fields AS f USING (field)
ORDER BY e.position;
