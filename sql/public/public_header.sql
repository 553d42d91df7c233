-- A public corpus's own fields besides its records.
CREATE OR REPLACE TABLE public_header AS
SELECT j->>'schema' AS schema, j->>'source' AS source, j->>'frozen_at' AS frozen_at,
       json_array_length(j->'records') AS records
FROM document_json;
