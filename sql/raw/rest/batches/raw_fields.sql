-- raw_fields.sql's records of a dump read in Arrow batches (batches/rest_objects.sql), with
-- the fields read as JSON values, the title and body as their texts: only for the records
-- raw_fields.sql keeps (the pull requests are half of a dump's texts), as it keeps them
-- (rest_fields). Each field of a record kept is parsed as JSON here or in raw_issues.sql,
-- which refuses one that is not UTF-8 (rest_batches.py).
ALTER VIEW raw_fields RENAME TO rest_fields;
CREATE OR REPLACE VIEW raw_fields AS
SELECT * REPLACE (
    CAST(number AS JSON) AS number, title->>'$' AS title, body->>'$' AS body, CAST(state AS JSON) AS state,
    CAST(url AS JSON) AS url, CAST(labels AS JSON) AS labels, CAST(created_at AS JSON) AS created_at,
    CAST(updated_at AS JSON) AS updated_at, CAST(closed_at AS JSON) AS closed_at
)
FROM rest_fields;
