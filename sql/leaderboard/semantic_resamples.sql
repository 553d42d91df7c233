-- Per run with a semantic grade and resample: its accuracy on each adjudicated field
-- (key 'adjudicated:<field>') and over every field ('adjudicated'), on the records
-- resample_weights draws for its group (the draws of the fact slices), so a ranking or a
-- pair on an adjudicated score is resampled like one on a slice.
CREATE OR REPLACE TABLE semantic_resamples AS
WITH results AS (
    SELECT r.run_index, r.group_id, g.record_index, x.field, x.correct::INTEGER AS correct
    FROM runs.run_semantic_results AS x
    JOIN leaderboard_runs AS r USING (run_id)
    JOIN graded_records AS g ON g.group_id = r.group_id AND g.id = x.id
    WHERE r.graded
),
keyed AS (
    SELECT run_index, group_id, record_index, 'adjudicated:' || field AS key, correct FROM results
    UNION ALL
    SELECT run_index, group_id, record_index, 'adjudicated', correct FROM results
)
SELECT x.run_index, x.group_id, x.key, w.resample, sum(w.weight * x.correct) / sum(w.weight) AS value
FROM keyed AS x
JOIN resample_weights AS w USING (group_id, record_index)
GROUP BY ALL;
