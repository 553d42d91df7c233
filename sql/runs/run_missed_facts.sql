-- Per test-split run, graded record and slice: how many gold facts the submission did not
-- give that run_facts leaves out (every slice but labels), a count instead of the facts,
-- so a leaderboard's figures stay the same while the database holds no hidden answer.
CREATE TABLE IF NOT EXISTS runs.run_missed_facts (
    run_id VARCHAR NOT NULL,
    id VARCHAR NOT NULL,
    slice VARCHAR NOT NULL,
    missed BIGINT NOT NULL
);
INSERT INTO runs.run_missed_facts
SELECT (SELECT run_id FROM run_meta), gold.id, gold.slice, count(*)
FROM gold_facts AS gold
ANTI JOIN submitted_facts AS sent ON gold.id = sent.id AND gold.fact = sent.fact
WHERE gold.slice <> 'labels' AND (SELECT split FROM run_meta) = 'test'
GROUP BY ALL
ORDER BY 2, 3;
