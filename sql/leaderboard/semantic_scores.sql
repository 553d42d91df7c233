-- Per graded run with a semantic grade (run --semantic) and rubric field: the grade as
-- the run recorded it (coverage, accuracy and macro-F1, each with its 95% bootstrap
-- interval) and the adjudicators' own agreement on the field (the ceiling); runs without
-- one have no rows.
CREATE OR REPLACE TABLE semantic_scores AS
SELECT
    r.run_index, r.run_id, r.group_id, s.semantic_sha256, s.field_index, s.field, s.records, s.answered,
    s.coverage, s.accuracy, s.accuracy_low, s.accuracy_high, s.macro_f1, s.macro_f1_low, s.macro_f1_high,
    s.ceiling_raw_agreement, s.ceiling_alpha
FROM runs.run_semantic AS s
JOIN leaderboard_runs AS r USING (run_id)
ORDER BY r.run_index, s.field_index;
