-- rest_objects.sql for a dump that msgspec cut into Arrow batches (s8f_duck/rest_batches.py:
-- rest_batches, read once): each field the JSON text of its value ('' where the member is
-- missing, which DuckDB's reader gives as NULL), the labels as objects of their name alone,
-- pull_request_url the html_url inside pull_request. record counts every object of the
-- dump, pull requests too, as in rest_objects.sql; a null element is a row of kind NULL.
-- The title and body stay JSON texts here, beside their kind: raw_fields.sql drops the pull
-- requests first, and batches/raw_fields.sql then reads the texts of the issues alone.
CREATE OR REPLACE VIEW rest_objects AS
SELECT
    record, kind, CAST(number AS JSON) AS number,
    title, json_kind(title) AS title_kind, body, json_kind(body) AS body_kind,
    CAST(state AS JSON) AS state, CAST(html_url AS JSON) AS html_url, CAST(labels AS JSON) AS labels,
    CAST(created_at AS JSON) AS created_at, CAST(updated_at AS JSON) AS updated_at,
    CAST(closed_at AS JSON) AS closed_at, CAST(pull_request_url AS JSON) AS pull_request_url
FROM (
    SELECT
        record, CASE WHEN null_element THEN 'NULL' ELSE 'OBJECT' END AS kind,
        nullif(number, '') AS number, nullif(title, '') AS title, nullif(body, '') AS body,
        nullif(state, '') AS state, nullif(html_url, '') AS html_url, nullif(labels, '') AS labels,
        nullif(created_at, '') AS created_at, nullif(updated_at, '') AS updated_at,
        nullif(closed_at, '') AS closed_at, nullif(pull_request_url, '') AS pull_request_url
    FROM rest_batches
);
