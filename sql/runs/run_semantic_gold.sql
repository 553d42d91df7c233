-- Per run graded on a semantic answer bundle and rubric field: the bundle's policy and
-- model adjudicators' model names (the leaderboard's sections and self-preference flag),
-- the field's ceiling on the graded split with its interval and basis, whether the run's
-- accuracy is above that interval, the gold's coverage, and what makes the gold weak
-- (NULL: it passed the gates). No rows for other runs.
CREATE TABLE IF NOT EXISTS runs.run_semantic_gold (
    run_id VARCHAR NOT NULL,
    semantic_sha256 VARCHAR NOT NULL,
    policy VARCHAR,
    model_adjudicators VARCHAR[],
    field_index INTEGER NOT NULL,
    field VARCHAR NOT NULL,
    ceiling DOUBLE,
    ceiling_low DOUBLE,
    ceiling_high DOUBLE,
    ceiling_basis VARCHAR,
    ceiling_note VARCHAR,
    above_ceiling BOOLEAN,
    gold_coverage DOUBLE,
    weak VARCHAR
);
INSERT INTO runs.run_semantic_gold
SELECT
    (SELECT run_id FROM run_meta), m.semantic_sha256, m.policy, m.model_adjudicators, g.field_index, g.field,
    g.ceiling, g.ceiling_low, g.ceiling_high, g.ceiling_basis, g.ceiling_note, g.above_ceiling, g.gold_coverage, g.weak
FROM semantic_grade AS g CROSS JOIN semantic_meta AS m;
