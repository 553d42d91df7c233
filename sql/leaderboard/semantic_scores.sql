-- Per graded run with a semantic grade (run --semantic) and rubric field: the grade as
-- the run recorded it (coverage, accuracy and macro-F1, each with its 95% bootstrap
-- interval), the bundle it was graded on (digest and policy), the field's ceiling on the
-- graded split with its interval and whether the accuracy is above it, the gold's
-- coverage and weakness, and whether the run asked one of the bundle's model
-- adjudicators (semantic_runs.sql); runs without one have no rows.
CREATE OR REPLACE TABLE semantic_scores AS
SELECT
    r.run_index, r.run_id, r.group_id, s.semantic_sha256, u.policy, u.bundle, s.field_index, s.field, s.records,
    s.answered, s.coverage, s.accuracy, s.accuracy_low, s.accuracy_high, s.macro_f1, s.macro_f1_low, s.macro_f1_high,
    g.ceiling, g.ceiling_low, g.ceiling_high, g.ceiling_basis, g.ceiling_note, g.above_ceiling, s.ceiling_alpha,
    g.gold_coverage, g.weak, u.self_preference
FROM runs.run_semantic AS s
JOIN leaderboard_runs AS r USING (run_id)
JOIN semantic_runs AS u USING (run_id)
LEFT JOIN semantic_gold AS g USING (run_id, field_index)
ORDER BY r.run_index, s.field_index;
