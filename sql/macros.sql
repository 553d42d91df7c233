-- Shared macros, created before any other step.

-- SPEC §4: a component's split. h = SHA-256 of the component key (its smallest issue
-- number) in decimal ASCII; bucket = first byte of h mod 10: 0-1 train, 2-3 tune, 4-9 test.
CREATE OR REPLACE MACRO split_of(component) AS (
    CASE (('0x' || left(sha256(CAST(component AS VARCHAR)), 2))::INTEGER % 10)
        WHEN 0 THEN 'train' WHEN 1 THEN 'train'
        WHEN 2 THEN 'tune' WHEN 3 THEN 'tune'
        ELSE 'test'
    END
);

-- SPEC §6: a record's id.
CREATE OR REPLACE MACRO issue_id(number) AS 'issue-' || CAST(number AS VARCHAR);

-- SPEC §3: issue numbers cited in a text, as RE2 regexp group 1 matches (digits kept
-- when the integer is > 0; the callers make them distinct and sorted).
CREATE OR REPLACE MACRO cited_numbers(text, pattern) AS (
    list_filter(
        list_transform(regexp_extract_all(text, pattern, 1), lambda d: CAST(d AS BIGINT)),
        lambda n: n > 0
    )
);

-- SPEC §8: the facts of each answer in a table of answers, as a set of (id, slice, fact).
CREATE OR REPLACE MACRO answer_facts(answer_table) AS TABLE
    SELECT id, 'state' AS slice, 'state:' || state AS fact FROM query_table(answer_table)
    UNION SELECT id, 'labels', 'label:' || unnest(labels) FROM query_table(answer_table)
    UNION SELECT id, 'references', 'ref:' || unnest("references") FROM query_table(answer_table)
    UNION SELECT id, 'duplicate_targets', 'dup:' || unnest(duplicate_targets) FROM query_table(answer_table)
    UNION SELECT id, 'scope_contradictions', 'contradiction:' || unnest(scope_contradictions)
        FROM query_table(answer_table);
