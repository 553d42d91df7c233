-- docs/adjudication.md: the records on which the adjudicators disagree: some field that two
-- or more of them labelled with more than one label between them (in packet order), for a
-- further adjudicator to settle.
CREATE OR REPLACE TABLE disagreements AS
SELECT u.record_index, u.id, list(DISTINCT l.field ORDER BY l.field) AS fields
FROM adjudicated_labels AS l JOIN packet_units AS u USING (id)
WHERE (l.id, l.field) IN (
    SELECT (id, field) FROM adjudicated_labels GROUP BY id, field HAVING count(*) >= 2 AND count(DISTINCT value) > 1
)
GROUP BY ALL
ORDER BY u.record_index;
