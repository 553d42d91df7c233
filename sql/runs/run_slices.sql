-- Per run and fact slice (state, labels, references, duplicate_targets,
-- scope_contradictions): true and false positives, false negatives, precision, recall.
CREATE TABLE IF NOT EXISTS runs.run_slices (
    run_id VARCHAR NOT NULL,
    slice VARCHAR NOT NULL,
    gold_facts BIGINT,
    submitted_facts BIGINT,
    true_positives BIGINT,
    false_positives BIGINT,
    false_negatives BIGINT,
    "precision" DOUBLE,
    recall DOUBLE,
    records_with_errors BIGINT
);
INSERT INTO runs.run_slices
SELECT
    (SELECT run_id FROM run_meta),
    slice, gold_facts, submitted_facts, submitted_facts - false_positive_facts, false_positive_facts,
    false_negative_facts, "precision", recall, records_with_errors
FROM slice_breakdown;
