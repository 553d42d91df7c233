-- Per graded run with a semantic grade, field and label given or in the gold: true
-- positives (given and in the gold), false positives (given, not in the gold) and false
-- negatives (in the gold, not given) over the records graded; precision, recall and F1,
-- and F1's 95% percentile bootstrap interval over the records (resample_weights: the same
-- draws as the fact slices), so a weak label shows instead of being averaged away.
CREATE OR REPLACE TABLE semantic_label_scores AS
WITH results AS (
    SELECT r.run_index, r.run_id, r.group_id, g.record_index, x.field, x.gold, coalesce(x.submitted, []) AS submitted
    FROM runs.run_semantic_results AS x
    JOIN leaderboard_runs AS r USING (run_id)
    JOIN graded_records AS g ON g.group_id = r.group_id AND g.id = x.id
),
per_record AS (
    SELECT
        run_index, run_id, group_id, record_index, field, label,
        (list_contains(gold, label) AND list_contains(submitted, label))::INTEGER AS tp,
        (NOT list_contains(gold, label) AND list_contains(submitted, label))::INTEGER AS fp,
        (list_contains(gold, label) AND NOT list_contains(submitted, label))::INTEGER AS fn
    FROM results, unnest(list_distinct(list_concat(gold, submitted))) AS given(label)
),
points AS (
    SELECT run_index, run_id, field, label, sum(tp) AS tp, sum(fp) AS fp, sum(fn) AS fn FROM per_record GROUP BY ALL
),
resampled AS (
    SELECT
        p.run_index, p.field, p.label, w.resample,
        2 * sum(w.weight * p.tp) / nullif(2 * sum(w.weight * p.tp) + sum(w.weight * p.fp) + sum(w.weight * p.fn), 0)
            AS f1
    FROM per_record AS p
    JOIN resample_weights AS w USING (group_id, record_index)
    GROUP BY ALL
),
spreads AS (
    SELECT run_index, field, label, quantile_cont(f1, [0.025, 0.975]) AS bounds FROM resampled GROUP BY ALL
)
SELECT
    p.run_index, p.run_id, p.field, p.label, p.tp + p.fn AS gold, p.tp + p.fp AS given, p.tp,
    p.tp / nullif(p.tp + p.fp, 0) AS "precision", p.tp / nullif(p.tp + p.fn, 0) AS recall,
    2 * p.tp / (2 * p.tp + p.fp + p.fn) AS f1,
    least(s.bounds[1], 2 * p.tp / (2 * p.tp + p.fp + p.fn)) AS f1_low,
    greatest(s.bounds[2], 2 * p.tp / (2 * p.tp + p.fp + p.fn)) AS f1_high
FROM points AS p
LEFT JOIN spreads AS s USING (run_index, field, label)
ORDER BY p.run_index, p.field, gold DESC, p.label;
