-- Each submission of a batch and the corpus digest it is bound to ('' for none).
CREATE OR REPLACE TABLE submitted_headers AS
SELECT submission, corpus_sha256 FROM submitted_documents;
