-- docs/adjudication.md: per field, the distance between every two labels given to it, for
-- Krippendorff's alpha. A one-label field is nominal: 0 for the same label, else 1. A
-- set-valued field (rubric_fields.multi) takes MASI (Passonneau 2006): 1 - J * M, J the
-- Jaccard index of the two sets, M 1 where they are equal, 2/3 where one holds the other,
-- 1/3 where they only overlap, 0 where they are disjoint.
CREATE OR REPLACE TABLE label_distances AS
WITH given AS (SELECT DISTINCT field, value, labels FROM adjudicated_labels),
pairs AS (
    SELECT
        a.field, a.value AS c, b.value AS k, f.multi,
        len(list_intersect(a.labels, b.labels)) AS shared, len(a.labels) AS size_c, len(b.labels) AS size_k
    FROM given AS a JOIN given AS b USING (field) JOIN rubric_fields AS f USING (field)
)
SELECT
    field, c, k,
    CASE
        WHEN c = k THEN 0.0
        WHEN NOT multi THEN 1.0
        ELSE 1 - shared / (size_c + size_k - shared) * CASE
            WHEN shared = 0 THEN 0.0
            WHEN shared = size_c OR shared = size_k THEN 2 / 3
            ELSE 1 / 3
        END
    END AS distance
FROM pairs
ORDER BY field, c, k;
