-- docs/format.md §8: each test record of the bundle (its ids are unique: the loader checks) beside
-- each submission's last copy of its id. `same` (equal state and equal lists, element by
-- element) means equal fact sets, so only the other pairs need comparing fact by fact
-- (fact_errors). Per slice, how many distinct facts each side holds (slice_breakdown).
CREATE OR REPLACE TABLE answer_pairs AS
WITH
pairs AS (
    SELECT
        graded.submission,
        gold.id,
        id_number(gold.id) AS number,
        submitted.id IS NOT NULL AS submitted,
        coalesce(
            gold.state = submitted.state AND gold.labels = submitted.labels
                AND gold."references" = submitted."references"
                AND gold.duplicate_targets = submitted.duplicate_targets
                AND gold.scope_contradictions = submitted.scope_contradictions,
            false
        ) AS same,
        list_unique(gold.labels) AS gold_labels,
        list_unique(gold."references") AS gold_references,
        list_unique(gold.duplicate_targets) AS gold_duplicate_targets,
        list_unique(gold.scope_contradictions) AS gold_scope_contradictions,
        submitted.labels, submitted."references", submitted.duplicate_targets, submitted.scope_contradictions
    FROM grade_binding AS graded
    CROSS JOIN answers AS gold
    LEFT JOIN last_copies('submitted_answers') AS submitted
        ON submitted.submission = graded.submission AND submitted.id = gold.id
    WHERE gold.split = graded_split()
)
SELECT
    submission, id, number, submitted, same,
    gold_labels, gold_references, gold_duplicate_targets, gold_scope_contradictions,
    CASE WHEN same THEN gold_labels ELSE coalesce(list_unique(labels), 0) END AS submitted_labels,
    CASE WHEN same THEN gold_references ELSE coalesce(list_unique("references"), 0) END AS submitted_references,
    CASE WHEN same THEN gold_duplicate_targets ELSE coalesce(list_unique(duplicate_targets), 0) END
        AS submitted_duplicate_targets,
    CASE WHEN same THEN gold_scope_contradictions ELSE coalesce(list_unique(scope_contradictions), 0) END
        AS submitted_scope_contradictions
FROM pairs;
