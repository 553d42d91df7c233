-- SPEC §1: one row per label object of a raw record, in input order; a null label or a
-- missing / null name is an empty name (dropped later, in labels.sql).
CREATE OR REPLACE TABLE raw_labels AS
SELECT
    CAST(r.j->>'number' AS BIGINT) AS number,
    TRY_CAST(item.key AS INTEGER) AS position,
    coalesce(item.value->>'name', '') AS name
FROM raw_json AS r, json_each(r.j->'labels') AS item
WHERE json_type(r.j->'labels') = 'ARRAY'
ORDER BY number, position;
