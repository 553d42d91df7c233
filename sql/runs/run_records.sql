-- Per run and graded record: submitted or not, exact or not, the record's gold facts,
-- how many of them were right, and its false positive and false negative facts: what a
-- leaderboard resamples.
CREATE TABLE IF NOT EXISTS runs.run_records (
    run_id VARCHAR NOT NULL,
    id VARCHAR NOT NULL,
    number BIGINT,
    submitted BOOLEAN,
    exact BOOLEAN,
    gold_facts BIGINT,
    facts_right BIGINT,
    false_positive_facts BIGINT,
    false_negative_facts BIGINT
);
INSERT INTO runs.run_records
SELECT
    (SELECT run_id FROM run_meta),
    results.id, pairs.number, results.submitted, results.exact,
    1 + pairs.gold_labels + pairs.gold_references + pairs.gold_duplicate_targets
        + pairs.gold_scope_contradictions AS gold,  -- answer_pairs counts each side's distinct facts
    gold - results.false_negative_facts,
    results.false_positive_facts, results.false_negative_facts
FROM record_results AS results
JOIN answer_pairs AS pairs USING (id)
ORDER BY pairs.number, results.id;
