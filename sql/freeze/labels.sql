-- SPEC §3: one row per label occurrence; empty names dropped, duplicates kept.
CREATE OR REPLACE TABLE labels AS
SELECT number, name AS label
FROM raw_labels
WHERE name <> ''
ORDER BY number, label;
