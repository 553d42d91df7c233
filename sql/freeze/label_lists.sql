-- docs/format.md §6: each labelled record's labels sorted by byte order, and the same list as both
-- artifacts write it (`labels_json`, laid out for a record member at six spaces' indent),
-- each distinct label encoded once. Records without labels have no row.
-- Each record's (label, encoded) pairs are gathered, then sorted as a list: structs
-- compare by their first field, so by label, bytewise (an ordered list() aggregate took
-- twice as long: at 1,000,000 issues 1.8 s against 0.96 s).
CREATE OR REPLACE TABLE label_lists AS
WITH
encoded AS (SELECT label, go_json(label) AS label_json FROM (SELECT DISTINCT label FROM labels)),
gathered AS (
    SELECT number, list_sort(list({'label': label, 'json': label_json})) AS pairs
    FROM labels
    JOIN encoded USING (label)
    GROUP BY number
)
SELECT
    number,
    list_transform(pairs, lambda p: p.label) AS labels,
    go_json_list(list_transform(pairs, lambda p: p.json), '      ') AS labels_json
FROM gathered
ORDER BY number;
