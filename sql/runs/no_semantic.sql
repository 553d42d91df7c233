-- For a run not graded on a semantic answer bundle (none given, or the run not graded):
-- the semantic tables the run records read, empty.
CREATE OR REPLACE TABLE semantic_meta AS SELECT NULL::VARCHAR AS semantic_sha256 WHERE false;
CREATE OR REPLACE TABLE semantic_grade AS
SELECT NULL::INTEGER AS field_index, NULL::VARCHAR AS field, NULL::BIGINT AS records, NULL::BIGINT AS answered, NULL::DOUBLE AS coverage,
    NULL::DOUBLE AS accuracy, NULL::DOUBLE AS accuracy_low, NULL::DOUBLE AS accuracy_high, NULL::DOUBLE AS macro_f1,
    NULL::DOUBLE AS macro_f1_low, NULL::DOUBLE AS macro_f1_high, NULL::DOUBLE AS ceiling_raw_agreement,
    NULL::DOUBLE AS ceiling_alpha
WHERE false;
CREATE OR REPLACE TABLE semantic_results AS
SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS field, NULL::VARCHAR[] AS gold, NULL::VARCHAR[] AS submitted,
    NULL::BOOLEAN AS correct
WHERE false;
