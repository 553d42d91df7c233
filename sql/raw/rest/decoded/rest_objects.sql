-- rest_objects from raw_values (record, j): the objects as Go decoded them, when DuckDB's
-- reader refused the dump (see s8f_duck/input_forms.py).
CREATE OR REPLACE TABLE rest_objects AS
SELECT
    record, json_type(j) AS kind, j->'number' AS number,
    j->>'title' AS title, json_kind(j->'title') AS title_kind, j->>'body' AS body, json_kind(j->'body') AS body_kind,
    j->'state' AS state, j->'html_url' AS html_url, j->'labels' AS labels,
    j->'created_at' AS created_at, j->'updated_at' AS updated_at, j->'closed_at' AS closed_at,
    j->'pull_request'->'html_url' AS pull_request_url
FROM raw_values;
