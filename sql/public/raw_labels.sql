-- A public corpus read back as freeze input: its label lists become raw_labels.
CREATE OR REPLACE TABLE raw_labels AS
WITH lists AS (
    SELECT CAST(number->>'$' AS BIGINT) AS number, CAST(labels AS VARCHAR[]) AS names
    FROM public_records
    WHERE json_is_array(labels)
)
SELECT number, generate_subscripts(names, 1) - 1 AS position, unnest(names) AS name
FROM lists
ORDER BY number, position;
