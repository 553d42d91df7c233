-- docs/adjudication.md: per field, pair of adjudicators and resample, over the records both
-- labelled (weighted by how often the resample drew them): n, raw agreement and Cohen's
-- kappa, (p_o - p_e) / (1 - p_e) with p_e from each one's own label shares; NULL where
-- p_e is 1 (both gave one and the same label throughout: kappa is undefined).
CREATE OR REPLACE TABLE pair_agreement AS
WITH labelled AS (
    SELECT l.adjudicator, l.id, l.field, l.value, u.record_index
    FROM adjudicated_labels AS l JOIN packet_units AS u USING (id)
),
pairs AS (
    SELECT w.resample, a.field, a.adjudicator AS a, b.adjudicator AS b, a.value AS va, b.value AS vb, w.weight
    FROM labelled AS a
    JOIN labelled AS b ON a.field = b.field AND a.id = b.id AND a.adjudicator < b.adjudicator
    JOIN agreement_weights AS w ON w.record_index = a.record_index
),
totals AS (
    SELECT resample, field, a, b, sum(weight) AS n, sum(CASE WHEN va = vb THEN weight ELSE 0 END) AS agreed
    FROM pairs GROUP BY ALL
),
shares_a AS (SELECT resample, field, a, b, va AS label, sum(weight) AS c FROM pairs GROUP BY ALL),
shares_b AS (SELECT resample, field, a, b, vb AS label, sum(weight) AS c FROM pairs GROUP BY ALL),
chance AS (
    SELECT resample, field, a, b, sum(shares_a.c * shares_b.c) AS products
    FROM shares_a JOIN shares_b USING (resample, field, a, b, label)
    GROUP BY ALL
)
SELECT
    resample, field, a, b, n::BIGINT AS n, agreed / n AS raw_agreement,
    CASE WHEN coalesce(products, 0) / (n * n) < 1
        THEN (agreed / n - coalesce(products, 0) / (n * n)) / (1 - coalesce(products, 0) / (n * n)) END AS kappa
FROM totals LEFT JOIN chance USING (resample, field, a, b)
ORDER BY resample, field, a, b;
