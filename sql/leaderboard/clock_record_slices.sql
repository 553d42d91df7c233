-- Per graded run, record with a creation time (clock_records) and derived slice (references,
-- duplicate_targets, scope_contradictions: the primary score's): gold facts, false positives
-- and false negatives (records with no fact of a slice have no row).
CREATE OR REPLACE TABLE clock_record_slices AS
SELECT
    runs.run_index, records.record_index, facts.slice,
    count(*) FILTER (WHERE facts.gold)::INTEGER AS gold,
    count(*) FILTER (WHERE facts.submitted AND NOT facts.gold)::INTEGER AS fp,
    count(*) FILTER (WHERE facts.gold AND NOT facts.submitted)::INTEGER AS fn
FROM runs.run_facts AS facts
JOIN leaderboard_runs AS runs USING (run_id)
JOIN clock_records AS records ON records.group_id = runs.group_id AND records.id = facts.id
WHERE runs.graded AND facts.slice IN ('references', 'duplicate_targets', 'scope_contradictions')
GROUP BY ALL;
