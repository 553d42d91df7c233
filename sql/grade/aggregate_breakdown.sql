-- Beyond the reference: per submission and aggregate, whether it is exact, how many entries differ,
-- and the first 20 differing entries (key or rank, gold value, submitted value). On tune or
-- train the aggregates (corpus-wide) are not graded: exact is null, not true.
CREATE OR REPLACE TABLE aggregate_breakdown AS
WITH aggregates(aggregate, ordinal) AS (
    VALUES ('state_counts', 1), ('label_counts', 2), ('newest_issue_ids', 3), ('most_recently_updated_issue_ids', 4)
)
SELECT
    graded.submission,
    aggregates.aggregate,
    CASE WHEN graded_split() = 'test' THEN count(aggregate_errors.entry) = 0 END AS exact,
    count(aggregate_errors.entry) AS differences,
    coalesce(
        list({'entry': entry, 'gold': CAST(gold AS VARCHAR), 'submitted': CAST(submitted AS VARCHAR)}
            ORDER BY TRY_CAST(entry AS BIGINT), entry) FILTER (WHERE entry IS NOT NULL),
        []
    )[1:20] AS first_differences
FROM grade_binding AS graded
CROSS JOIN aggregates
LEFT JOIN aggregate_errors ON aggregate_errors.submission = graded.submission
    AND aggregate_errors.aggregate = aggregates.aggregate
GROUP BY graded.submission, aggregates.aggregate, aggregates.ordinal
ORDER BY graded.submission, aggregates.ordinal;
