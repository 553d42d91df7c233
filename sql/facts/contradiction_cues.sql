-- SPEC §3 scope_contradictions: the markers occurring as substrings of the body after
-- DuckDB's lower(), which is Unicode simple case mapping like Go's strings.ToLower.
-- Lower-casing every body is costly, so a case-insensitive scan first keeps the bodies
-- that can hold a marker: RE2's (?i) matches every ASCII case variant (and more), and
-- the one non-ASCII letter that lower() maps into a marker, U+0130 (İ -> i), is listed.
CREATE OR REPLACE TABLE contradiction_cues AS
WITH candidates AS (
    SELECT number, lower(body) AS lowered
    FROM scrubbed_issues
    WHERE regexp_matches(body, '(?i)contrad[iİ]ct|[iİ]ncons[iİ]stent|confl[iİ]ct|d[iİ]sagree|m[iİ]smatch')
)
SELECT candidates.number, cue.marker
FROM candidates
CROSS JOIN (VALUES ('conflict'), ('contradict'), ('disagree'), ('inconsistent'), ('mismatch')) AS cue(marker)
WHERE contains(candidates.lowered, cue.marker)
ORDER BY candidates.number, cue.marker;
