-- docs/adjudication.md: per field and resample, Krippendorff's alpha (nominal) over all
-- adjudicators, missing labels allowed: 1 - (n - 1) * sum of the coincidences of unlike
-- labels / (n^2 - sum of n_c^2), the coincidences of each record with m >= 2 labels each
-- 1 / (m - 1) (weighted by how often the resample drew it). NULL where every pairable
-- label is the same (alpha is undefined).
CREATE OR REPLACE TABLE field_alpha AS
WITH labelled AS (
    SELECT l.adjudicator, l.id, l.field, l.value, u.record_index
    FROM adjudicated_labels AS l JOIN packet_units AS u USING (id)
),
units AS (SELECT field, id, count(*) AS m FROM labelled GROUP BY ALL HAVING count(*) >= 2),
coincidences AS (
    SELECT w.resample, a.field, a.value AS c, b.value AS k, sum(w.weight / (units.m - 1)) AS o
    FROM labelled AS a
    JOIN labelled AS b ON a.field = b.field AND a.id = b.id AND a.adjudicator <> b.adjudicator
    JOIN units ON units.field = a.field AND units.id = a.id
    JOIN agreement_weights AS w ON w.record_index = a.record_index
    GROUP BY ALL
),
margins AS (SELECT resample, field, c, sum(o) AS n_c FROM coincidences GROUP BY ALL),
totals AS (SELECT resample, field, sum(n_c) AS n, sum(n_c * n_c) AS squares FROM margins GROUP BY ALL),
unlike AS (SELECT resample, field, sum(o) FILTER (WHERE c <> k) AS d FROM coincidences GROUP BY ALL)
SELECT
    resample, field, n AS pairable,
    CASE WHEN n * n - squares > 0 THEN 1 - (n - 1) * coalesce(d, 0) / (n * n - squares) END AS alpha
FROM totals JOIN unlike USING (resample, field)
ORDER BY resample, field;
