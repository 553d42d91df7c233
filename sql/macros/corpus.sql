-- Macros for deriving the corpus from issues: ids, splits, cited numbers, the redaction map's scans.

-- docs/format.md §4: a component's split. h = SHA-256 of the component key (its smallest issue
-- number) in decimal ASCII; bucket = first byte of h mod 10: 0-1 train, 2-3 tune, 4-9 test.
CREATE OR REPLACE MACRO split_of(component) AS (
    CASE (('0x' || left(sha256(CAST(component AS VARCHAR)), 2))::INTEGER % 10)
        WHEN 0 THEN 'train' WHEN 1 THEN 'train'
        WHEN 2 THEN 'tune' WHEN 3 THEN 'tune'
        ELSE 'test'
    END
);

-- A state upper-cased as Go's strings.ToUpper does it: Unicode simple case
-- mapping, which is DuckDB's upper() but for one letter: upper() makes ß (U+00DF) the
-- capital ẞ (U+1E9E), which Go leaves as it is (checked over every code point against
-- the simple mappings of Unicode 14).
CREATE OR REPLACE MACRO go_upper(s) AS
    CASE WHEN contains(s, 'ß') THEN array_to_string(list_transform(string_split(s, 'ß'), lambda p: upper(p)), 'ß')
        ELSE upper(s) END;

-- docs/format.md §6: a record's id.
CREATE OR REPLACE MACRO issue_id(number) AS 'issue-' || CAST(number AS VARCHAR);

-- docs/format.md §3: issue numbers cited in a text, as RE2 regexp group 1 matches (digits kept
-- when the integer is > 0; the callers make them distinct and sorted).
CREATE OR REPLACE MACRO cited_numbers(text, pattern) AS (
    list_filter(
        list_transform(regexp_extract_all(text, pattern, 1), lambda d: CAST(d AS BIGINT)),
        lambda n: n > 0
    )
);

-- docs/format.md §2 (scrub_passes.sql): an ASCII literal as an RE2 pattern matching it in any ASCII
-- case, each letter as a class ([sS]): RE2 skips ahead fast to those, not to (?i).
CREATE OR REPLACE MACRO scrub_class_pattern(literal) AS
    array_to_string(list_transform(string_split(literal, ''), lambda c:
        CASE WHEN lower(c) <> upper(c) THEN '[' || lower(c) || upper(c) || ']'
            WHEN contains('\.+*?()|[]{}^$', c) THEN '\' || c
            ELSE c
        END), '');
-- docs/format.md §2: what the redaction map puts in place of each match, and whether a record's
-- title or body holds it (report_counts counts those records as scrubbed).
CREATE OR REPLACE MACRO scrub_mark() AS '[redacted:public-corpus]';
CREATE OR REPLACE MACRO holds_scrub_mark(title, body) AS
    (contains(title, scrub_mark()) OR contains(body, scrub_mark()));
-- Whether a text may hold a match of a rule whose matches all contain `literal` (any
-- text, for a rule without one): under (?i) a match holds the literal's ASCII letters in
-- either case, or U+212A for k (which lower() maps to k), or U+017F for s (which it keeps).
CREATE OR REPLACE MACRO scrub_may_match(t, literal) AS
    literal IS NULL OR contains(lower(t), lower(literal)) OR contains(t, chr(383));
-- Whether a text may hold a match of some redaction rule (scrub_passes.sql sets the
-- variables; a NULL pattern is no scan).
CREATE OR REPLACE MACRO scrub_candidate(t) AS
    coalesce(regexp_matches(t, getvariable('scrub_literals')[1]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[2]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[3]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[4]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[5]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[6]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[7]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_literals')[8]), false)
    OR coalesce(regexp_matches(t, getvariable('scrub_others')), false)
    OR (coalesce(getvariable('scrub_folds'), false) AND (contains(t, chr(383)) OR contains(t, chr(8490))));  -- ſ, K

-- Last: run_steps (s8f_duck/steps.py) skips this file on a connection that has run it.
SET VARIABLE s8f_duck_macros_corpus = true;
