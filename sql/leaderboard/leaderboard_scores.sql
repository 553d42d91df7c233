-- Per group of runs, the scores the leaderboard gives each of its graded runs, numbered
-- in the order it shows them: the five fact slices (1-5), all facts together ('all',
-- 6), then each frequent label (most gold records first).
CREATE OR REPLACE TABLE leaderboard_scores AS
WITH slices(key, score) AS (
    VALUES ('state', 1), ('labels', 2), ('references', 3), ('duplicate_targets', 4), ('scope_contradictions', 5),
        ('all', 6)
),
groups AS (SELECT DISTINCT group_id FROM graded_records)
SELECT groups.group_id, slices.score::INTEGER AS score, 'slice' AS scope, slices.key, NULL::VARCHAR AS fact
FROM groups CROSS JOIN slices
UNION ALL
SELECT
    group_id, (6 + row_number() OVER (PARTITION BY group_id ORDER BY gold_records DESC, label))::INTEGER,
    'label', label, fact
FROM frequent_labels
ORDER BY group_id, score;
