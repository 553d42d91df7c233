-- SPEC §6: each labelled record's labels sorted by byte order, and the same list as both
-- artifacts write it (`labels_json`, laid out for a record member at six spaces' indent),
-- each distinct label encoded once. Records without labels have no row.
CREATE OR REPLACE TABLE label_lists AS
WITH encoded AS (SELECT label, go_json(label) AS label_json FROM (SELECT DISTINCT label FROM labels))
SELECT
    number,
    list(label ORDER BY label) AS labels,
    go_json_list(list(label_json ORDER BY label), '      ') AS labels_json
FROM labels
JOIN encoded USING (label)
GROUP BY number
ORDER BY number;
