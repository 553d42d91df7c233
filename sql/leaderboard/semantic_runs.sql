-- Per graded run with a semantic grade: the semantic bundle it was graded on (digest and
-- policy: the leaderboard's sections, one gold per comparison), the models it asked
-- through the runner's proxy (run_request_models), and whether one of them is one of the
-- bundle's model adjudicators (self_preference: a judge tends to favour its own answers),
-- how many fields the gold is weak on, and how many fields its accuracy is above the
-- ceiling's interval on.
CREATE OR REPLACE TABLE semantic_runs AS
WITH gold AS (
    SELECT
        run_id, any_value(semantic_sha256) AS semantic_sha256, any_value(policy) AS policy,
        any_value(model_adjudicators) AS model_adjudicators, count(*) FILTER (WHERE weak IS NOT NULL) AS weak_fields,
        count(*) FILTER (WHERE above_ceiling) AS fields_above_ceiling
    FROM runs.run_semantic_gold
    GROUP BY run_id
),
asked AS (
    SELECT run_id, list(DISTINCT model ORDER BY model) AS models_asked
    FROM runs.run_request_models WHERE model IS NOT NULL
    GROUP BY run_id
)
SELECT
    r.run_index, r.run_id, r.group_id, g.semantic_sha256, g.policy, g.model_adjudicators,
    coalesce(a.models_asked, []) AS models_asked,
    list_intersect(coalesce(a.models_asked, []), coalesce(g.model_adjudicators, [])) AS adjudicators_asked,
    len(list_intersect(coalesce(a.models_asked, []), coalesce(g.model_adjudicators, []))) > 0 AS self_preference,
    g.weak_fields, g.fields_above_ceiling
FROM gold AS g
JOIN leaderboard_runs AS r USING (run_id)
LEFT JOIN asked AS a USING (run_id)
ORDER BY r.run_index;
