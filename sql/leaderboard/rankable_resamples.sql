-- Per graded run, score a run can be ranked on, and resample: the score's value on the
-- records drawn. Scores: each slice's F1 (key the slice), F1 over all facts ('all-facts'),
-- the primary score ('derived': the mean F1 of the primary_slices included, over those
-- defined in the resample), and the adjudicated accuracies (semantic_resamples). NULL
-- where undefined in a resample (nothing gold nor submitted among the records drawn).
CREATE OR REPLACE TABLE rankable_resamples AS
WITH slices AS (
    SELECT resamples.run_index, runs.group_id, scores.key, resamples.score, resamples.resample, resamples.f1 AS value
    FROM resample_scores AS resamples
    JOIN leaderboard_runs AS runs USING (run_index)
    JOIN leaderboard_scores AS scores ON scores.group_id = runs.group_id AND scores.score = resamples.score
    WHERE scores.scope = 'slice'
)
SELECT run_index, group_id, CASE key WHEN 'all' THEN 'all-facts' ELSE key END AS key, resample, value FROM slices
UNION ALL
SELECT slices.run_index, slices.group_id, 'derived', slices.resample, avg(slices.value)
FROM slices
JOIN primary_slices AS p ON p.group_id = slices.group_id AND p.score = slices.score AND p.included
GROUP BY ALL
UNION ALL
SELECT run_index, group_id, key, resample, value FROM semantic_resamples;
