-- Per run, graded record and fact (`state:S`, `label:L`, `ref:N`, `dup:N`,
-- `contradiction:M`): whether gold holds it and whether the submission did. Per slice
-- and per label statistics resample these by record. On the test split a gold fact the
-- submission did not give is kept only for labels (the public corpus holds every record's
-- labels; per label scores need them); the others are counted in run_missed_facts, so
-- the database gives no hidden answer away (docs/runs.md).
CREATE TABLE IF NOT EXISTS runs.run_facts (
    run_id VARCHAR NOT NULL,
    id VARCHAR NOT NULL,
    slice VARCHAR NOT NULL,
    fact VARCHAR NOT NULL,
    gold BOOLEAN NOT NULL,
    submitted BOOLEAN NOT NULL
);
INSERT INTO runs.run_facts
SELECT
    (SELECT run_id FROM run_meta),
    coalesce(gold.id, sent.id), coalesce(gold.slice, sent.slice), coalesce(gold.fact, sent.fact),
    gold.fact IS NOT NULL, sent.fact IS NOT NULL
FROM gold_facts AS gold
FULL JOIN submitted_facts AS sent ON gold.id = sent.id AND gold.fact = sent.fact
WHERE sent.fact IS NOT NULL OR gold.slice = 'labels' OR (SELECT split FROM run_meta) <> 'test'
ORDER BY 2, 3, 4;
