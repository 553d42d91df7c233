-- Per run graded on a semantic answer bundle (runs --semantic) and rubric field: the
-- semantic grade (coverage, accuracy, macro-F1 with their intervals) and the field's alpha
-- (ceiling_raw_agreement, the old ceiling, is no longer filled: the ceiling measured on
-- the records graded is run_semantic_gold's). No rows for other runs.
CREATE TABLE IF NOT EXISTS runs.run_semantic (
    run_id VARCHAR NOT NULL,
    semantic_sha256 VARCHAR NOT NULL,
    field_index INTEGER NOT NULL,
    field VARCHAR NOT NULL,
    records BIGINT,
    answered BIGINT,
    coverage DOUBLE,
    accuracy DOUBLE,
    accuracy_low DOUBLE,
    accuracy_high DOUBLE,
    macro_f1 DOUBLE,
    macro_f1_low DOUBLE,
    macro_f1_high DOUBLE,
    ceiling_raw_agreement DOUBLE,
    ceiling_alpha DOUBLE
);
INSERT INTO runs.run_semantic
SELECT
    (SELECT run_id FROM run_meta), (SELECT semantic_sha256 FROM semantic_meta),
    field_index, field, records, answered, coverage, accuracy, accuracy_low, accuracy_high, macro_f1, macro_f1_low,
    macro_f1_high, NULL, ceiling_alpha
FROM semantic_grade;
