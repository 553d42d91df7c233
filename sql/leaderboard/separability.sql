-- Per group and score it can be ranked on: separability, how many pairs of its graded runs
-- (both with a value) the paired bootstrap separates (run_pairs), of how many. A benchmark
-- that separates few pairs cannot tell those pipelines apart on that score.
CREATE OR REPLACE TABLE separability AS
SELECT group_id, key, count(*) FILTER (WHERE separated)::BIGINT AS separated, count(*)::BIGINT AS pairs
FROM run_pairs
GROUP BY ALL
ORDER BY group_id, key;
