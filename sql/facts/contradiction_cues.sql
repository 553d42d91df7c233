-- SPEC §3 scope_contradictions: the markers occurring as substrings of the body after
-- DuckDB's lower(), which is Unicode simple case mapping like Go's strings.ToLower.
CREATE OR REPLACE TABLE contradiction_cues AS
SELECT issue.number, cue.marker
FROM scrubbed_issues AS issue
CROSS JOIN (VALUES ('conflict'), ('contradict'), ('disagree'), ('inconsistent'), ('mismatch')) AS cue(marker)
WHERE contains(lower(issue.body), cue.marker)
ORDER BY issue.number, cue.marker;
