-- For a run not graded on a semantic answer bundle (none given, or the run not graded):
-- the semantic tables the run records read, empty.
CREATE OR REPLACE TABLE semantic_meta AS
SELECT NULL::VARCHAR AS semantic_sha256, NULL::VARCHAR AS policy, NULL::VARCHAR[] AS model_adjudicators WHERE false;
CREATE OR REPLACE TABLE semantic_grade AS
SELECT NULL::INTEGER AS field_index, NULL::VARCHAR AS field, NULL::BIGINT AS records, NULL::BIGINT AS answered, NULL::DOUBLE AS coverage,
    NULL::DOUBLE AS accuracy, NULL::DOUBLE AS accuracy_low, NULL::DOUBLE AS accuracy_high, NULL::DOUBLE AS macro_f1,
    NULL::DOUBLE AS macro_f1_low, NULL::DOUBLE AS macro_f1_high, NULL::DOUBLE AS ceiling, NULL::DOUBLE AS ceiling_low,
    NULL::DOUBLE AS ceiling_high, NULL::VARCHAR AS ceiling_basis, NULL::VARCHAR AS ceiling_note,
    NULL::DOUBLE AS ceiling_alpha, NULL::BOOLEAN AS above_ceiling, NULL::DOUBLE AS gold_coverage, NULL::VARCHAR AS weak
WHERE false;
CREATE OR REPLACE TABLE semantic_results AS
SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS field, NULL::VARCHAR[] AS gold, NULL::VARCHAR[] AS submitted,
    NULL::BOOLEAN AS correct
WHERE false;
