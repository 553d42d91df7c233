-- docs/adjudication.md: the position probe (adjudicate model --probe-order), per model
-- adjudicator and field: the records it answered both times (adjudicated_labels, the
-- first answer, and probe_labels, the second, asked with every field's labels in
-- reversed order), how many of them changed (the set compared whole) and that share. No
-- rows for an adjudicator without a probe.
CREATE OR REPLACE TABLE probe_changes AS
SELECT
    l.adjudicator, f.field, count(*) AS records, count(*) FILTER (WHERE l.value <> p.value) AS changed,
    round(count(*) FILTER (WHERE l.value <> p.value) / count(*), 6) AS share
FROM adjudicated_labels AS l
JOIN probe_labels AS p USING (adjudicator, id, field)
JOIN rubric_fields AS f USING (field)
GROUP BY l.adjudicator, f.field_index, f.field
ORDER BY l.adjudicator, f.field_index;
