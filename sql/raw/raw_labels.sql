-- SPEC §1: one row per label object of a raw record, in input order; a null label or a
-- missing / null name is an empty name (dropped later, in labels.sql).
CREATE OR REPLACE TABLE raw_labels AS
WITH lists AS (
    SELECT CAST(number->>'$' AS BIGINT) AS number, CAST(labels AS JSON[]) AS items
    FROM raw_fields
    WHERE json_is_array(labels)
)
SELECT number, position, coalesce(item->>'name', '') AS name
FROM (SELECT number, generate_subscripts(items, 1) - 1 AS position, unnest(items) AS item FROM lists)
ORDER BY number, position;
