-- Per graded run with a semantic grade: the semantic bundle it was graded on (digest and
-- policy: the leaderboard's sections, one gold per comparison; `bundle` names the pair, the
-- unit within which adjudicated scores are ranked and paired), the models it asked
-- through the runner's proxy (request_models), and whether one of them is one of the
-- bundle's model adjudicators (self_preference: a judge tends to favour its own answers),
-- how many fields the gold is weak on, and how many fields its accuracy is above the
-- ceiling's interval on. A run recorded before the gold was (no semantic_gold rows) has
-- no policy and NULL counts.
CREATE OR REPLACE TABLE semantic_runs AS
WITH graded AS (
    SELECT run_id, any_value(semantic_sha256) AS semantic_sha256 FROM runs.run_semantic GROUP BY run_id
),
gold AS (
    SELECT
        run_id, any_value(policy) AS policy, any_value(model_adjudicators) AS model_adjudicators,
        count(*) FILTER (WHERE weak IS NOT NULL) AS weak_fields,
        count(*) FILTER (WHERE above_ceiling) AS fields_above_ceiling
    FROM semantic_gold
    GROUP BY run_id
),
asked AS (
    SELECT run_id, list(DISTINCT model ORDER BY model) AS models_asked
    FROM request_models WHERE model IS NOT NULL
    GROUP BY run_id
)
SELECT
    r.run_index, r.run_id, r.group_id, s.semantic_sha256, g.policy,
    s.semantic_sha256 || ' ' || coalesce(g.policy, '') AS bundle, g.model_adjudicators,
    coalesce(a.models_asked, []) AS models_asked,
    list_intersect(coalesce(a.models_asked, []), coalesce(g.model_adjudicators, [])) AS adjudicators_asked,
    len(list_intersect(coalesce(a.models_asked, []), coalesce(g.model_adjudicators, []))) > 0 AS self_preference,
    g.weak_fields, g.fields_above_ceiling
FROM graded AS s
JOIN leaderboard_runs AS r USING (run_id)
LEFT JOIN gold AS g USING (run_id)
LEFT JOIN asked AS a USING (run_id)
ORDER BY r.run_index;
