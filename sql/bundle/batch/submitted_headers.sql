-- Each submission of a batch, its schema (NULL when the checked reader read it) and the corpus
-- digest it is bound to ('' for none).
CREATE OR REPLACE TABLE submitted_headers AS
SELECT submission, schema, corpus_sha256 FROM submitted_documents;
