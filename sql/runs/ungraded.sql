-- For a run that was not graded (the candidate failed, hit a limit, or wrote no usable
-- submission): the grade tables the run records read, empty, so the run is recorded
-- with NULL grade fields and no slices, records or facts.
CREATE OR REPLACE TABLE grade AS
SELECT NULL::VARCHAR AS schema, NULL::BIGINT AS test_records, NULL::BIGINT AS exact_records,
    NULL::BIGINT AS false_positive_facts, NULL::BIGINT AS false_negative_facts,
    NULL::BIGINT AS aggregate_errors, NULL::BIGINT AS citation_errors, NULL::BOOLEAN AS quality_pass
WHERE false;
CREATE OR REPLACE TABLE slice_breakdown AS
SELECT NULL::VARCHAR AS slice, NULL::BIGINT AS gold_facts, NULL::BIGINT AS submitted_facts,
    NULL::BIGINT AS false_positive_facts, NULL::BIGINT AS false_negative_facts, NULL::DOUBLE AS "precision",
    NULL::DOUBLE AS recall, NULL::BIGINT AS records_with_errors
WHERE false;
CREATE OR REPLACE TABLE aggregate_breakdown AS
SELECT NULL::VARCHAR AS aggregate, NULL::BOOLEAN AS exact, NULL::BIGINT AS differences WHERE false;
CREATE OR REPLACE TABLE record_results AS
SELECT NULL::VARCHAR AS id, NULL::BOOLEAN AS submitted, NULL::BIGINT AS false_positive_facts,
    NULL::BIGINT AS false_negative_facts, NULL::BOOLEAN AS exact
WHERE false;
CREATE OR REPLACE TABLE answer_pairs AS
SELECT NULL::VARCHAR AS id, NULL::BIGINT AS number, NULL::BIGINT AS gold_labels,
    NULL::BIGINT AS gold_references, NULL::BIGINT AS gold_duplicate_targets,
    NULL::BIGINT AS gold_scope_contradictions
WHERE false;
CREATE OR REPLACE TABLE gold_facts AS
SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS slice, NULL::VARCHAR AS fact WHERE false;
CREATE OR REPLACE TABLE submitted_facts AS SELECT * FROM gold_facts;
