-- SPEC §2: the titles and bodies that the redaction map changes, after every rule.
-- Rules apply in order, each case-insensitively on the text left by the rule before;
-- scrub_matches counts every match of every rule in title and body.
-- Only texts that some rule matches can change (a rule that matches nothing changes
-- nothing), so one scan with all rules as alternatives picks the few candidates, and
-- only those go through the rules one by one.
-- (A variable, not a column: DuckDB compiles a constant pattern once, a column's per row;
-- it is NULL for an empty map.)
SET VARIABLE any_redaction = (
    SELECT '(?i)(?:' || string_agg(pattern, ')|(?:' ORDER BY rule) || ')' FROM redactions
);

CREATE OR REPLACE TABLE scrub_passes AS
WITH RECURSIVE
candidates AS (
    SELECT number, title, body
    FROM raw_issues
    WHERE getvariable('any_redaction') IS NOT NULL  -- no rules (a public corpus read back): no scan
      AND (regexp_matches(title, getvariable('any_redaction')) OR regexp_matches(body, getvariable('any_redaction')))
),
passes(number, step, title, body, scrub_matches) AS (
    SELECT number, 0, title, body, 0 FROM candidates
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
SELECT number, title, body, scrub_matches
FROM passes
WHERE step = (SELECT count(*) FROM redactions)
ORDER BY number;
