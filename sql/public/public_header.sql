-- A public corpus's own fields besides its records.
CREATE OR REPLACE TABLE public_header AS
SELECT schema->>'$' AS schema, source->>'$' AS source, frozen_at->>'$' AS frozen_at,
       (SELECT count(*) FROM raw_issues) AS records
FROM public_document;
