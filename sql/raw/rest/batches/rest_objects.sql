-- rest_objects.sql for a dump that msgspec cut into Arrow batches (s8f_duck/rest_batches.py:
-- rest_batches, read once): each field the JSON text of its value ('' where the member is
-- missing, which DuckDB's reader gives as NULL), the labels as objects of their name alone,
-- pull_request_url the html_url inside pull_request. record counts every object of the
-- dump, pull requests too, as in rest_objects.sql; a null element is a row of kind NULL.
-- The fields stay texts here (the kind of a JSON text is its first character): raw_fields.sql
-- drops the pull requests first, and batches/raw_fields.sql then reads the JSON values of
-- the issues alone.
CREATE OR REPLACE VIEW rest_objects AS
SELECT
    record, CASE WHEN null_element THEN 'NULL' ELSE 'OBJECT' END AS kind,
    nullif(number, '') AS number, nullif(title, '') AS title, json_kind(nullif(title, '')) AS title_kind,
    nullif(body, '') AS body, json_kind(nullif(body, '')) AS body_kind,
    nullif(state, '') AS state, nullif(html_url, '') AS html_url, nullif(labels, '') AS labels,
    nullif(created_at, '') AS created_at, nullif(updated_at, '') AS updated_at,
    nullif(closed_at, '') AS closed_at, nullif(pull_request_url, '') AS pull_request_url
FROM rest_batches;
