-- SPEC §2: the raw issues with title and body passed through the redaction map.
-- Rules apply in order, each case-insensitively on the text left by the rule before;
-- scrub_matches counts every match of every rule in title and body. Most texts match
-- no rule, so a cheap regexp_matches test guards the costly replace and count.
CREATE OR REPLACE TABLE scrubbed_issues AS
WITH RECURSIVE passes(number, step, title, body, scrub_matches) AS (
    SELECT number, 0, title, body, 0
    FROM raw_issues
    UNION ALL
    SELECT
        number,
        step,
        CASE WHEN title_hit THEN regexp_replace(title, pattern, '[redacted:public-corpus]', 'g') ELSE title END,
        CASE WHEN body_hit THEN regexp_replace(body, pattern, '[redacted:public-corpus]', 'g') ELSE body END,
        scrub_matches
            + CASE WHEN title_hit THEN len(regexp_extract_all(title, pattern, 0)) ELSE 0 END
            + CASE WHEN body_hit THEN len(regexp_extract_all(body, pattern, 0)) ELSE 0 END
    FROM (
        SELECT
            p.number, p.step + 1 AS step, p.title, p.body, p.scrub_matches, '(?i)' || r.pattern AS pattern,
            regexp_matches(p.title, '(?i)' || r.pattern) AS title_hit,
            regexp_matches(p.body, '(?i)' || r.pattern) AS body_hit
        FROM passes AS p
        JOIN redactions AS r ON r.rule = p.step + 1
    )
)
SELECT raw.* REPLACE (passes.title AS title, passes.body AS body), passes.scrub_matches
FROM raw_issues AS raw
JOIN passes USING (number)
WHERE passes.step = (SELECT count(*) FROM redactions)
ORDER BY number;
