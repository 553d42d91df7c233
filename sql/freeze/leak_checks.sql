-- docs/format.md §6 leak checks, one row; freeze fails and writes nothing unless all are true.
-- public_scan holds what a byte scan of the written public file found; oracle_grade is
-- the grade of the written answer bundle submitted as its own candidate; content_checks
-- the checks of the tables.
CREATE OR REPLACE TABLE leak_checks AS
SELECT
    NOT (SELECT bool_or(found) FROM public_scan WHERE kind = 'answers_sha256') AS answer_digest_absent_from_public,
    content.disjoint_train_tune_test_content,
    content.disjoint_train_tune_test_ids,
    (SELECT quality_pass AND exact_records = test_records FROM oracle_grade) AS oracle_blind_run_exact,
    NOT (SELECT bool_or(found) FROM public_scan WHERE kind = 'answer_field') AS public_omits_derived_answer_fields,
    content.public_preserves_source_state_labels_closed_at
FROM content_checks AS content;
