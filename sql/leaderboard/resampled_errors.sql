-- Per run, score and resample: the false positive and false negative facts of the
-- records drawn, each counted as many times as it was drawn; 'all' (score 6) is the sum
-- of the five slices. A resample that drew no record with an error of a score has no row
-- (zero).
CREATE OR REPLACE TABLE resampled_errors AS
WITH sums AS (
    SELECT
        counts.run_index, counts.score, weights.resample,
        sum(weights.weight * counts.fp)::BIGINT AS fp, sum(weights.weight * counts.fn)::BIGINT AS fn
    FROM error_counts AS counts
    JOIN resample_weights AS weights USING (group_id, record_index)
    GROUP BY ALL
)
SELECT run_index, score, resample, fp, fn FROM sums
UNION ALL
SELECT run_index, 6, resample, sum(fp)::BIGINT, sum(fn)::BIGINT FROM sums WHERE score <= 5 GROUP BY ALL;
