-- docs/format.md §3 duplicate_targets: "duplicate(s|d) [of] #N" or "supersede(s|d) by #N" in
-- title + "\n" + body, with ASCII \b and \s, Unicode case folding (so ſ matches s).
-- A cheap scan first keeps the texts that can match: each holds "duplicate" or
-- "supersede" in some ASCII case, or an ſ (U+017F, the one non-ASCII letter that folds
-- to a letter of either word). Explicit [xX] classes, because RE2 skips ahead fast to
-- them but not to a (?i) literal containing s, which also stands for ſ.
CREATE OR REPLACE TABLE duplicate_edges AS
WITH candidates AS (
    SELECT number, title, body
    FROM scrubbed_issues
    WHERE list_bool_or(list_transform([title, body], lambda t:
        regexp_matches(t, '[dD][uU][pP][lL][iI][cC][aA][tT][eE]')
        OR regexp_matches(t, '[sS][uU][pP][eE][rR][sS][eE][dD][eE]')
        OR contains(t, 'ſ')))
)
SELECT DISTINCT number AS src, unnest(cited_numbers(
    title || chr(10) || body,
    '(?i)\b(?:duplicate(?:s|d)?(?:\s+of)?|supersede[sd]?\s+by)\s+#([0-9]{1,7})\b'
)) AS dst
FROM candidates
ORDER BY src, dst;
