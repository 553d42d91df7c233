-- Per run and aggregate (graded on the test split only): exact or not, and how many
-- entries differ.
CREATE TABLE IF NOT EXISTS runs.run_aggregates (
    run_id VARCHAR NOT NULL,
    aggregate VARCHAR NOT NULL,
    exact BOOLEAN,
    differences BIGINT
);
INSERT INTO runs.run_aggregates
SELECT (SELECT run_id FROM run_meta), aggregate, exact, differences
FROM aggregate_breakdown
WHERE graded_split() = 'test';
