-- An answer bundle's or submission's schema and the corpus digest it is bound to.
CREATE OR REPLACE TABLE bundle_header AS
SELECT coalesce(schema->>'$', '') AS schema, coalesce(corpus_sha256->>'$', '') AS corpus_sha256
FROM bundle_document;
