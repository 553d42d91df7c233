-- GitHub's REST issue objects (GET /repos/OWNER/REPO/issues) as DuckDB reads them, one
-- row per object (record = 0-based position, pull requests counted), from one JSON array
-- or JSON Lines (the variable input_json_format: 'array' or 'newline_delimited'). Each
-- field is still a JSON value, so that raw_issues can name wrong types; pull_request_url
-- is the html_url inside pull_request (NULL when either is missing or null). Read when
-- the first reading (parts/rest_objects.sql) found a problem or was refused: the
-- positions name the records. DuckDB refuses an object that repeats a key or an element
-- that is not an object; the loader then decodes the bytes as Go does (decoded/).
CREATE OR REPLACE VIEW rest_objects AS
SELECT
    ordinality - 1 AS record, 'OBJECT' AS kind, number,
    title->>'$' AS title, json_kind(title) AS title_kind, body->>'$' AS body, json_kind(body) AS body_kind,
    state, html_url, CAST(labels AS JSON) AS labels, created_at, updated_at, closed_at,
    pull_request.html_url AS pull_request_url
FROM read_json(
    getvariable('input_path'),
    format = getvariable('input_json_format'),
    records = true,
    columns = {
        'number': 'JSON', 'title': 'JSON', 'body': 'JSON', 'state': 'JSON', 'html_url': 'JSON',
        'labels': 'STRUCT(name JSON)[]', 'created_at': 'JSON', 'updated_at': 'JSON', 'closed_at': 'JSON',
        'pull_request': 'STRUCT(html_url JSON)'
    },
    maximum_object_size = 268435456
) WITH ORDINALITY;
