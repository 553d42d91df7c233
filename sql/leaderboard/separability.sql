-- Per group and score it can be ranked on: separability, how many pairs of its graded runs
-- (both with a value) the paired bootstrap separates (run_pairs), of how many. A benchmark
-- that separates few pairs cannot tell those pipelines apart on that score. An adjudicated
-- score counts per semantic bundle (`bundle`), since runs on different golds are not paired.
CREATE OR REPLACE TABLE separability AS
SELECT group_id, bundle, key, count(*) FILTER (WHERE separated)::BIGINT AS separated, count(*)::BIGINT AS pairs
FROM run_pairs
GROUP BY ALL
ORDER BY group_id, key, bundle;
