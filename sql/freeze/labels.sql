-- docs/format.md §3: one row per label occurrence; empty names dropped, duplicates kept.
CREATE OR REPLACE TABLE labels AS
SELECT number, label
FROM (SELECT number, unnest(label_names) AS label FROM raw_issues)
WHERE label <> ''
ORDER BY number, label;
