-- A public corpus's records, one row each; record = 0-based position.
CREATE OR REPLACE TABLE public_records AS
SELECT record, r.*
FROM (SELECT generate_subscripts(records, 1) - 1 AS record, unnest(records) AS r FROM public_document);
