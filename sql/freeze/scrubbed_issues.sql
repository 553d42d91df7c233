-- SPEC §2: the raw issues with title and body passed through the redaction map.
-- Rules apply in order, each case-insensitively on the text left by the rule before;
-- scrub_matches counts every match of every rule in title and body.
CREATE OR REPLACE TABLE scrubbed_issues AS
WITH RECURSIVE passes(number, step, title, body, scrub_matches) AS (
    SELECT number, 0, title, body, 0
    FROM raw_issues
    UNION ALL
    SELECT
        p.number,
        p.step + 1,
        regexp_replace(p.title, '(?i)' || r.pattern, '[redacted:public-corpus]', 'g'),
        regexp_replace(p.body, '(?i)' || r.pattern, '[redacted:public-corpus]', 'g'),
        p.scrub_matches
            + len(regexp_extract_all(p.title, '(?i)' || r.pattern, 0))
            + len(regexp_extract_all(p.body, '(?i)' || r.pattern, 0))
    FROM passes AS p
    JOIN redactions AS r ON r.rule = p.step + 1
)
SELECT raw.* REPLACE (passes.title AS title, passes.body AS body), passes.scrub_matches
FROM raw_issues AS raw
JOIN passes USING (number)
WHERE passes.step = (SELECT count(*) FROM redactions)
ORDER BY number;
