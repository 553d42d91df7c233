-- Each submission graded (the usable ones of a batch; the grader sets s8f_answers_corpus to
-- the answer bundle's corpus digest) and the two digests a grade is bound to.
CREATE OR REPLACE TABLE grade_binding AS
SELECT submission, getvariable('s8f_answers_corpus') AS answers_corpus_sha256, corpus_sha256 AS submitted_corpus_sha256
FROM submitted_headers
ORDER BY submission;
