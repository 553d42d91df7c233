-- For a runs database written before the gold's ceilings and gates were recorded (it has
-- run_semantic but not run_semantic_gold nor run_request_models): those tables, empty, so
-- its semantic grades still show, with no policy, ceiling nor marks.
CREATE OR REPLACE TABLE semantic_gold AS
SELECT
    NULL::VARCHAR AS run_id, NULL::VARCHAR AS semantic_sha256, NULL::VARCHAR AS policy,
    NULL::VARCHAR[] AS model_adjudicators, NULL::INTEGER AS field_index, NULL::VARCHAR AS field,
    NULL::DOUBLE AS ceiling, NULL::DOUBLE AS ceiling_low, NULL::DOUBLE AS ceiling_high, NULL::VARCHAR AS ceiling_basis,
    NULL::VARCHAR AS ceiling_note, NULL::BOOLEAN AS above_ceiling, NULL::DOUBLE AS gold_coverage, NULL::VARCHAR AS weak
WHERE false;
CREATE OR REPLACE TABLE request_models AS
SELECT NULL::VARCHAR AS run_id, NULL::BIGINT AS seq, NULL::VARCHAR AS model WHERE false;
