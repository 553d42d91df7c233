-- docs/adjudication.md: per field and pair of adjudicators, over the records both labelled,
-- how often the first gave one label and the second another (the diagonal: agreement).
CREATE OR REPLACE TABLE pair_confusion AS
SELECT a.field, a.adjudicator AS a, b.adjudicator AS b, a.value AS label_a, b.value AS label_b, count(*) AS records
FROM adjudicated_labels AS a
JOIN adjudicated_labels AS b ON a.field = b.field AND a.id = b.id AND a.adjudicator < b.adjudicator
GROUP BY ALL
ORDER BY a.field, a, b, label_a, label_b;
