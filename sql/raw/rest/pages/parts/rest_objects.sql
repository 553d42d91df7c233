-- pages/rest_objects.sql for the first reading of a dump in pages, on every core and
-- without record positions: the pages cut into parts between two pages (the loader,
-- s8f_duck/input_forms.py), each part read as pages. The title and body are read as
-- strings beside their text_kind, as in parts/rest_objects.sql. A page holds at most 100
-- objects: 32 MB allows for long bodies in all of them (a larger page is refused, and read
-- by pages/rest_objects.sql, which allows 256 MB), and keeps DuckDB's buffers smaller
-- (see parts/rest_objects.sql).
CREATE OR REPLACE VIEW rest_objects AS
SELECT
    NULL::BIGINT AS record, CASE WHEN o IS NULL THEN 'NULL' ELSE 'OBJECT' END AS kind, o.number,
    o.title, text_kind(o.title) AS title_kind, o.body, text_kind(o.body) AS body_kind,
    o.state, o.html_url, CAST(o.labels AS JSON) AS labels, o.created_at, o.updated_at, o.closed_at,
    o.pull_request.html_url AS pull_request_url
FROM (
    SELECT unnest(page) AS o
    FROM read_json(
        getvariable('input_path'),
        format = 'unstructured',
        records = false,
        columns = {
            'page': 'STRUCT(
                number JSON, title VARCHAR, body VARCHAR, state JSON, html_url JSON, labels STRUCT(name JSON)[],
                created_at JSON, updated_at JSON, closed_at JSON, pull_request STRUCT(html_url JSON))[]'
        },
        maximum_object_size = 33554432
    )
);
