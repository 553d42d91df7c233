-- Whether `serve --semantic` keeps its adjudicated test labels behind the Ladder: the most
-- one test record can move the one held-out score (the mean of the exact share and the
-- adjudicated accuracy), its exact answer by 1 / (2 x exact test records) and its
-- adjudicated fields by their number / (2 x adjudicated test labels), must be at most half
-- the Ladder's step. The shown score is the best score rounded to the step, up to half a
-- step below it, so a move of more than half a step can show as `improved`: a client
-- flipping one label at a time would read the labels one by one.
-- Source: semantic_ladder_gold (the semantic bundle's test entries: id, field) and the
-- variables s8f_ladder_step and s8f_exact_test_records.
CREATE OR REPLACE TABLE semantic_ladder AS
WITH per_record AS (
    SELECT id, count(*) AS labels FROM semantic_ladder_gold GROUP BY id
),
sizes AS (
    SELECT
        getvariable('s8f_exact_test_records')::BIGINT AS exact_test_records,
        (SELECT count(*) FROM per_record) AS test_records,
        (SELECT count(*) FROM semantic_ladder_gold) AS test_labels,
        (SELECT coalesce(max(labels), 0) FROM per_record) AS most_labels_per_record,
        getvariable('s8f_ladder_step')::DOUBLE AS ladder_step
)
SELECT
    *,
    (CASE WHEN exact_test_records > 0 THEN 1 / (2 * exact_test_records) ELSE 0 END
     + CASE WHEN test_labels > 0 THEN most_labels_per_record / (2 * test_labels) ELSE 0 END) AS record_effect,
    record_effect <= ladder_step / 2 AS fits
FROM sizes;
