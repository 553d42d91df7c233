-- A runs database written before run_missed_facts existed lists every gold fact of its
-- test runs in run_facts: those the submission missed (but labels) become counts in
-- run_missed_facts and leave run_facts. Run after each run's record, in its
-- transaction; a migrated database has no such rows left, so this changes nothing.
INSERT INTO runs.run_missed_facts
SELECT facts.run_id, facts.id, facts.slice, count(*)
FROM runs.run_facts AS facts
JOIN runs.runs AS r USING (run_id)
WHERE r.split = 'test' AND facts.gold AND NOT facts.submitted AND facts.slice <> 'labels'
GROUP BY ALL
ORDER BY 1, 2, 3;
DELETE FROM runs.run_facts
WHERE gold AND NOT submitted AND slice <> 'labels'
    AND run_id IN (SELECT run_id FROM runs.runs WHERE split = 'test');
