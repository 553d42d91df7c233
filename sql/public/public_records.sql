-- A public corpus's records, one row each; record = 0-based position. Every field is a
-- JSON value but the title and body: strings, beside the JSON kind of their values.
CREATE OR REPLACE TABLE public_records AS
SELECT
    record, r.* EXCLUDE (title, body), r.title->>'$' AS title, json_kind(r.title) AS title_kind,
    r.body->>'$' AS body, json_kind(r.body) AS body_kind
FROM (SELECT generate_subscripts(records, 1) - 1 AS record, unnest(records) AS r FROM public_document);
