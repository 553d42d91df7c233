-- Per group, score and resample: the gold facts of the records drawn, each counted as
-- many times as it was drawn; 'all' (score 6) is the sum of the five slices. A resample
-- that drew no record with gold facts of a score has no row (zero).
CREATE OR REPLACE TABLE resampled_gold AS
WITH sums AS (
    SELECT counts.group_id, counts.score, weights.resample, sum(weights.weight * counts.gold)::BIGINT AS gold
    FROM gold_counts AS counts
    JOIN resample_weights AS weights USING (group_id, record_index)
    GROUP BY ALL
)
SELECT group_id, score, resample, gold FROM sums
UNION ALL
SELECT group_id, 6, resample, sum(gold)::BIGINT FROM sums WHERE score <= 5 GROUP BY ALL;
