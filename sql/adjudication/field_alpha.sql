-- docs/adjudication.md: per field and resample, Krippendorff's alpha over all adjudicators,
-- missing labels allowed: 1 - (n - 1) * sum of o_ck * d_ck / sum of n_c * n_k * d_ck, the
-- coincidences o_ck of each record with m >= 2 labels each 1 / (m - 1) (weighted by how
-- often the resample drew it), n_c their margins, d_ck the labels' distance
-- (label_distances.sql: nominal, or MASI for a set-valued field). NULL where every
-- pairable label is the same (alpha is undefined).
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
observed AS (
    SELECT resample, field, sum(o * d.distance) AS disagreement
    FROM coincidences JOIN label_distances AS d USING (field, c, k)
    GROUP BY ALL
),
expected AS (
    SELECT a.resample, a.field, sum(a.n_c * b.n_c * d.distance) AS disagreement
    FROM margins AS a
    JOIN margins AS b ON a.resample = b.resample AND a.field = b.field
    JOIN label_distances AS d ON d.field = a.field AND d.c = a.c AND d.k = b.c
    GROUP BY ALL
),
totals AS (SELECT resample, field, sum(n_c) AS n FROM margins GROUP BY ALL)
SELECT
    resample, field, n AS pairable,
    CASE WHEN e.disagreement > 0 THEN 1 - (n - 1) * o.disagreement / e.disagreement END AS alpha
FROM totals JOIN observed AS o USING (resample, field) JOIN expected AS e USING (resample, field)
ORDER BY resample, field;
