-- SPEC §3 duplicate_targets: "duplicate(s|d) [of] #N" or "supersede(s|d) by #N" in
-- title + "\n" + body, with ASCII \b and \s, Unicode case folding (so ſ matches s).
CREATE OR REPLACE TABLE duplicate_edges AS
SELECT DISTINCT number AS src, unnest(cited_numbers(
    title || chr(10) || body,
    '(?i)\b(?:duplicate(?:s|d)?(?:\s+of)?|supersede[sd]?\s+by)\s+#([0-9]{1,7})\b'
)) AS dst
FROM scrubbed_issues
ORDER BY src, dst;
