-- For a runs database without semantic grades: the adjudicated scores the ranking reads, empty.
CREATE OR REPLACE TABLE semantic_resamples AS
SELECT NULL::INTEGER AS run_index, NULL::INTEGER AS group_id, NULL::VARCHAR AS key, NULL::INTEGER AS resample,
    NULL::DOUBLE AS value
WHERE false;
CREATE OR REPLACE TABLE semantic_points AS
SELECT NULL::INTEGER AS run_index, NULL::VARCHAR AS key, NULL::DOUBLE AS value, NULL::BIGINT AS n WHERE false;
