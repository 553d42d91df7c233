-- docs/adjudication.md: per field, how many packet records have a gold label, decided by
-- the adjudicators or by the resolver, and how many are excluded, by reason (the
-- semantic report's counts: figures, never labels).
CREATE OR REPLACE TABLE gold_counts AS
SELECT
    field,
    count(*) AS records,
    count(gold) AS gold,
    count(*) FILTER (WHERE decided_by = 'adjudicators') AS decided_by_adjudicators,
    count(*) FILTER (WHERE decided_by = 'resolver') AS decided_by_resolver,
    count(*) FILTER (WHERE excluded = 'fewer than two labels') AS excluded_fewer_than_two_labels,
    count(*) FILTER (WHERE excluded IN ('not unanimous', 'no majority')) AS excluded_no_agreement
FROM gold_labels
GROUP BY field, field_index
ORDER BY field_index;
