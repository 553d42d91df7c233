-- grade --created-after with --semantic: per rubric field, over the gold records of the
-- graded split created in the window (window_dates): how many are graded, how many the
-- submission answered validly, and the accuracy (the gold's set exactly / records; NULL
-- when the window holds none), as semantic_grade.sql counts them over every record.
CREATE OR REPLACE TABLE window_semantic AS
WITH fields AS (SELECT DISTINCT field_index, field FROM semantic_rubric)
SELECT
    fields.field,
    count(results.id) AS records,
    count(results.submitted) AS answered,
    round(avg(results.correct::INTEGER), 4) AS accuracy
FROM fields
LEFT JOIN (
    SELECT * FROM semantic_results SEMI JOIN window_dates AS dates ON dates.id = semantic_results.id AND dates.in_window
) AS results USING (field_index)
GROUP BY fields.field_index, fields.field
ORDER BY fields.field_index;
