-- docs/format.md §2: the titles and bodies that the redaction map may change, after every rule,
-- and those that hold its mark `[redacted:public-corpus]` before it (so that every
-- scrubbed text with the mark is here; report_counts counts them without another pass
-- over all the texts).
-- Rules apply in order, each case-insensitively on the text left by the rule before;
-- scrub_matches counts every match of every rule in title and body.
-- Only texts that some rule matches can change (a rule that matches nothing changes
-- nothing), so a first scan picks the few candidates, and only those go through the
-- rules one by one. RE2 scans slowly for a case-insensitive pattern, so a rule with a
-- literal that every match contains (`redactions.literal`, found by literals.py) is
-- looked for as that literal in explicit ASCII case classes, a scan of its own for each
-- of the first eight (RE2 is slow on their alternation too), plus any text with U+017F
-- or U+212A, which (?i) folds to s and k; the other rules as they are, in one alternation.
-- (Variables, not columns: DuckDB compiles a constant pattern once, a column's per row;
-- with no rules every pattern is NULL, and nothing is scanned.) In the passes, a rule's
-- pattern is a column, compiled for each text, so a text that cannot hold the rule's
-- literal (scrub_may_match) is passed on without RE2.
SET VARIABLE scrub_literals = (  -- the first eight rules' literals, by rule
    SELECT list(scrub_class_pattern(literal) ORDER BY rule)
    FROM (SELECT rule, literal FROM redactions WHERE literal IS NOT NULL ORDER BY rule LIMIT 8)
);
SET VARIABLE scrub_folds = (
    SELECT bool_or(regexp_matches(literal, '[sSkK]'))
    FROM (SELECT rule, literal FROM redactions WHERE literal IS NOT NULL ORDER BY rule LIMIT 8)
);
SET VARIABLE scrub_others = (
    SELECT '(?i)(?:' || string_agg(pattern, ')|(?:' ORDER BY rule) || ')'
    FROM redactions
    WHERE rule NOT IN (SELECT rule FROM redactions WHERE literal IS NOT NULL ORDER BY rule LIMIT 8)
);

CREATE OR REPLACE TABLE scrub_passes AS
WITH RECURSIVE
candidates AS (  -- and the texts that already hold the mark, for report_counts
    SELECT number, title, body
    FROM raw_issues
    WHERE scrub_candidate(title) OR scrub_candidate(body)
       OR holds_scrub_mark(title, body)
),
passes(number, step, title, body, scrub_matches) AS (
    SELECT number, 0, title, body, 0 FROM candidates
    UNION ALL
    SELECT
        number,
        step + 1,
        CASE WHEN title_hit THEN regexp_replace(title, '(?i)' || pattern, scrub_mark(), 'g') ELSE title END,
        CASE WHEN body_hit THEN regexp_replace(body, '(?i)' || pattern, scrub_mark(), 'g') ELSE body END,
        scrub_matches
            + CASE WHEN title_hit THEN len(regexp_extract_all(title, '(?i)' || pattern, 0)) ELSE 0 END
            + CASE WHEN body_hit THEN len(regexp_extract_all(body, '(?i)' || pattern, 0)) ELSE 0 END
    FROM (
        SELECT
            p.*, r.pattern,
            scrub_may_match(p.title, r.literal) AS title_hit,
            scrub_may_match(p.body, r.literal) AS body_hit
        FROM passes AS p
        JOIN redactions AS r ON r.rule = p.step + 1
    )
)
SELECT number, title, body, scrub_matches
FROM passes
WHERE step = (SELECT count(*) FROM redactions)
ORDER BY number;
