-- rest_objects.sql for pages: JSON arrays one after another, as `gh api --paginate`
-- prints them without --slurp. Each page is one value (at most 100 objects), unnested in
-- order; an object's record is its position over all pages (pull requests counted).
-- A null element is a row of kind NULL; DuckDB refuses a page that is not an array, an
-- element that is neither an object nor null, and an object that repeats a key (the
-- loader then decodes the bytes as Go does).
CREATE OR REPLACE VIEW rest_objects AS
WITH pages AS (
    SELECT
        page,
        sum(len(page)) OVER (ORDER BY ordinality ROWS UNBOUNDED PRECEDING) - len(page) AS first_record
    FROM read_json(
        getvariable('input_path'),
        format = 'unstructured',
        records = false,
        columns = {
            'page': 'STRUCT(
                number JSON, title JSON, body JSON, state JSON, html_url JSON, labels STRUCT(name JSON)[],
                created_at JSON, updated_at JSON, closed_at JSON, pull_request STRUCT(html_url JSON))[]'
        },
        maximum_object_size = 268435456
    ) WITH ORDINALITY
),
objects AS (
    SELECT first_record + generate_subscripts(page, 1) - 1 AS record, unnest(page) AS o FROM pages
)
SELECT
    record, CASE WHEN o IS NULL THEN 'NULL' ELSE 'OBJECT' END AS kind, o.number,
    o.title->>'$' AS title, json_kind(o.title) AS title_kind, o.body->>'$' AS body, json_kind(o.body) AS body_kind,
    o.state, o.html_url, CAST(o.labels AS JSON) AS labels, o.created_at, o.updated_at, o.closed_at,
    o.pull_request.html_url AS pull_request_url
FROM objects;
