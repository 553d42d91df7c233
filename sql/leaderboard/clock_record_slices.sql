-- Per graded run, record with a creation time (clock_records) and derived slice (references,
-- duplicate_targets, scope_contradictions: the primary score's): gold facts, false positives
-- and false negatives (records with no fact of a slice have no row). The gold facts a test
-- run missed are counted in missed_facts, not listed in run_facts: they count here as both.
CREATE OR REPLACE TABLE clock_record_slices AS
WITH facts AS (
    SELECT
        run_id, id, slice, gold::INTEGER AS gold, (submitted AND NOT gold)::INTEGER AS fp,
        (gold AND NOT submitted)::INTEGER AS fn
    FROM runs.run_facts
    UNION ALL
    SELECT run_id, id, slice, missed, 0, missed FROM missed_facts
)
SELECT
    runs.run_index, records.record_index, facts.slice,
    sum(facts.gold)::INTEGER AS gold, sum(facts.fp)::INTEGER AS fp, sum(facts.fn)::INTEGER AS fn
FROM facts
JOIN leaderboard_runs AS runs USING (run_id)
JOIN clock_records AS records ON records.group_id = runs.group_id AND records.id = facts.id
WHERE runs.graded AND facts.slice IN ('references', 'duplicate_targets', 'scope_contradictions')
GROUP BY ALL;
