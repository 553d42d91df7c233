-- Per graded run with a semantic grade, field and label given or in the gold: true
-- positives (given and in the gold), false positives (given, not in the gold), false
-- negatives (in the gold, not given) over the records graded, and precision, recall and
-- F1, so a weak label shows instead of being averaged away.
CREATE OR REPLACE TABLE semantic_label_scores AS
WITH results AS (
    SELECT r.run_index, r.run_id, x.field, x.gold, coalesce(x.submitted, []) AS submitted
    FROM runs.run_semantic_results AS x
    JOIN leaderboard_runs AS r USING (run_id)
),
counted AS (
    SELECT
        run_index, run_id, field, label,
        count(*) FILTER (WHERE list_contains(gold, label) AND list_contains(submitted, label)) AS tp,
        count(*) FILTER (WHERE NOT list_contains(gold, label) AND list_contains(submitted, label)) AS fp,
        count(*) FILTER (WHERE list_contains(gold, label) AND NOT list_contains(submitted, label)) AS fn
    FROM results, unnest(list_distinct(list_concat(gold, submitted))) AS given(label)
    GROUP BY ALL
)
SELECT
    run_index, run_id, field, label, tp + fn AS gold, tp + fp AS given, tp,
    tp / nullif(tp + fp, 0) AS "precision", tp / nullif(tp + fn, 0) AS recall, 2 * tp / (2 * tp + fp + fn) AS f1
FROM counted
ORDER BY run_index, field, gold DESC, label;
