-- Per submission, the grade's record figures over the graded split's records created in
-- the window: records, exact records, false positive and false negative facts.
CREATE OR REPLACE TABLE window_grade AS
WITH results AS (
    SELECT results.*
    FROM record_results AS results
    SEMI JOIN window_dates AS dates ON dates.id = results.id AND dates.in_window
)
SELECT
    binding.submission,
    count(results.id) AS records,
    count(results.id) FILTER (WHERE results.exact) AS exact_records,
    coalesce(sum(results.false_positive_facts), 0)::BIGINT AS false_positive_facts,
    coalesce(sum(results.false_negative_facts), 0)::BIGINT AS false_negative_facts
FROM grade_binding AS binding
LEFT JOIN results USING (submission)
GROUP BY binding.submission
ORDER BY binding.submission;
