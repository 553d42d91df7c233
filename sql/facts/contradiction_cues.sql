-- docs/format.md §3 scope_contradictions: the markers occurring as substrings of the body after
-- DuckDB's lower(), which is Unicode simple case mapping like Go's strings.ToLower.
-- Lower-casing every body is costly, so a cheap scan first keeps the bodies that can
-- hold a marker: one in some ASCII case, or any body with U+0130 (İ), the one non-ASCII
-- letter that lower() maps into a marker (İ -> i). Explicit [xX] classes, because RE2
-- skips ahead fast to them but not to a (?i) literal (whose s also stands for ſ).
CREATE OR REPLACE TABLE contradiction_cues AS
WITH candidates AS (
    SELECT number, lower(body) AS lowered
    FROM scrubbed_issues
    WHERE contains(body, 'İ')
       OR regexp_matches(body, '[cC][oO][nN][tT][rR][aA][dD][iI][cC][tT]')
       OR regexp_matches(body, '[iI][nN][cC][oO][nN][sS][iI][sS][tT][eE][nN][tT]')
       OR regexp_matches(body, '[cC][oO][nN][fF][lL][iI][cC][tT]')
       OR regexp_matches(body, '[dD][iI][sS][aA][gG][rR][eE][eE]')
       OR regexp_matches(body, '[mM][iI][sS][mM][aA][tT][cC][hH]')
)
SELECT candidates.number, cue.marker
FROM candidates
CROSS JOIN (VALUES ('conflict'), ('contradict'), ('disagree'), ('inconsistent'), ('mismatch')) AS cue(marker)
WHERE contains(candidates.lowered, cue.marker)
ORDER BY candidates.number, cue.marker;
