-- rest_objects.sql for the first reading of a REST dump, on every core and without
-- record positions: a JSON array cut into parts (split.array_parts), or JSON Lines, which
-- DuckDB cuts itself. The title and body are read as strings beside their text_kind, as
-- in raw/parts/raw_fields.sql (an unknown kind is a problem, and the dump is then read
-- again through rest_objects.sql to name it). One object is at most a few hundred KB
-- (GitHub caps a body at 65,536 characters), and DuckDB keeps buffers of the largest
-- size allowed (reading 100,000 issues in pages, 256 MB ones took 1.2 GB more memory than
-- 16 MB ones). A larger object is refused, and read by rest_objects.sql (256 MB).
CREATE OR REPLACE VIEW rest_objects AS
SELECT
    NULL::BIGINT AS record, 'OBJECT' AS kind, number,
    title, text_kind(title) AS title_kind, body, text_kind(body) AS body_kind,
    state, html_url, CAST(labels AS JSON) AS labels, created_at, updated_at, closed_at,
    pull_request.html_url AS pull_request_url
FROM read_json(
    getvariable('input_path'),
    format = getvariable('input_json_format'),
    records = true,
    columns = {
        'number': 'JSON', 'title': 'VARCHAR', 'body': 'VARCHAR', 'state': 'JSON', 'html_url': 'JSON',
        'labels': 'STRUCT(name JSON)[]', 'created_at': 'JSON', 'updated_at': 'JSON', 'closed_at': 'JSON',
        'pull_request': 'STRUCT(html_url JSON)'
    },
    maximum_object_size = 16777216
);
