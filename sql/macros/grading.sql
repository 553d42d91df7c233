-- Macros for reading answer bundles and grading submissions against them (sql/grade/,
-- sql/bundle/): the graded split, record order, last copies and fact sets.

-- The split a grade compares: test (the held-out grade) unless the grader set
-- s8f_graded_split to tune or train, for tuning with full feedback on those records.
CREATE OR REPLACE MACRO graded_split() AS coalesce(getvariable('s8f_graded_split'), 'test');

-- The number an id ends with (NULL for none), for ordering records the way files do.
CREATE OR REPLACE MACRO id_number(id) AS TRY_CAST(regexp_extract(id, '[0-9]+$') AS BIGINT);

-- docs/format.md §8: of the submitted answers in a table (submitted_answers or rows of it) that
-- repeat an id, the last copy is the one compared: the table but for the earlier copies
-- that submitted_repeats (sql/grade/) finds, each submission's apart.
CREATE OR REPLACE MACRO last_copies(answer_table) AS TABLE
    SELECT copy.* FROM query_table(answer_table) AS copy
    LEFT JOIN submitted_repeats AS repeated ON repeated.submission = copy.submission AND repeated.id = copy.id
    WHERE repeated.id IS NULL OR copy.pos = repeated.last_pos;

-- docs/format.md §8: the facts of each answer in a table of answers keyed by submission, as a set
-- of (submission, id, slice, fact).
CREATE OR REPLACE MACRO answer_facts(answer_table) AS TABLE
    SELECT submission, id, 'state' AS slice, 'state:' || state AS fact FROM query_table(answer_table)
    UNION SELECT submission, id, 'labels', 'label:' || unnest(labels) FROM query_table(answer_table)
    UNION SELECT submission, id, 'references', 'ref:' || unnest("references") FROM query_table(answer_table)
    UNION SELECT submission, id, 'duplicate_targets', 'dup:' || unnest(duplicate_targets)
        FROM query_table(answer_table)
    UNION SELECT submission, id, 'scope_contradictions', 'contradiction:' || unnest(scope_contradictions)
        FROM query_table(answer_table);

-- Whether a JSON value is an object with a repeated key (Go keeps the last value; DuckDB's
-- -> returns the first).
CREATE OR REPLACE MACRO json_has_duplicate_keys(v) AS
    coalesce(json_type(v) = 'OBJECT' AND len(json_keys(v)) <> len(list_distinct(json_keys(v))), false);

-- Last: run_steps (s8f_duck/steps.py) skips this file on a connection that has run it.
SET VARIABLE s8f_duck_macros_grading = true;
