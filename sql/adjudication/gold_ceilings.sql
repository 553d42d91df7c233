-- docs/adjudication.md: per field, how far the adjudicators agree with one another: the
-- most a candidate can be expected to reach on it (the semantic bundle's ceilings). Raw
-- agreement is the mean of every pair's, weighted by the records both labelled; alpha is
-- Krippendorff's over all (agreement.sql's points).
CREATE OR REPLACE TABLE gold_ceilings AS
SELECT
    f.field,
    (
        SELECT round(sum(a.value * a.records) / sum(a.records), 6) FROM agreement AS a
        WHERE a.field = f.field AND a.statistic = 'raw agreement' AND a.records > 0
    ) AS raw_agreement,
    (SELECT a.value FROM agreement AS a WHERE a.field = f.field AND a.statistic = 'alpha') AS alpha
FROM rubric_fields AS f
ORDER BY f.field_index;
