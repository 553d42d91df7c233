-- Shared macros, created before any other step.

-- docs/format.md §4: a component's split. h = SHA-256 of the component key (its smallest issue
-- number) in decimal ASCII; bucket = first byte of h mod 10: 0-1 train, 2-3 tune, 4-9 test.
CREATE OR REPLACE MACRO split_of(component) AS (
    CASE (('0x' || left(sha256(CAST(component AS VARCHAR)), 2))::INTEGER % 10)
        WHEN 0 THEN 'train' WHEN 1 THEN 'train'
        WHEN 2 THEN 'tune' WHEN 3 THEN 'tune'
        ELSE 'test'
    END
);

-- The split a grade compares: test (the held-out grade) unless the grader set
-- s8f_graded_split to tune or train, for tuning with full feedback on those records.
CREATE OR REPLACE MACRO graded_split() AS coalesce(getvariable('s8f_graded_split'), 'test');

-- A state upper-cased as Go's strings.ToUpper does it: Unicode simple case
-- mapping, which is DuckDB's upper() but for one letter: upper() makes ß (U+00DF) the
-- capital ẞ (U+1E9E), which Go leaves as it is (checked over every code point against
-- the simple mappings of Unicode 14).
CREATE OR REPLACE MACRO go_upper(s) AS
    CASE WHEN contains(s, 'ß') THEN array_to_string(list_transform(string_split(s, 'ß'), lambda p: upper(p)), 'ß')
        ELSE upper(s) END;

-- docs/format.md §6: a record's id.
CREATE OR REPLACE MACRO issue_id(number) AS 'issue-' || CAST(number AS VARCHAR);
-- The number an id ends with (NULL for none), for ordering records the way files do.
CREATE OR REPLACE MACRO id_number(id) AS TRY_CAST(regexp_extract(id, '[0-9]+$') AS BIGINT);

-- docs/format.md §3: issue numbers cited in a text, as RE2 regexp group 1 matches (digits kept
-- when the integer is > 0; the callers make them distinct and sorted).
CREATE OR REPLACE MACRO cited_numbers(text, pattern) AS (
    list_filter(
        list_transform(regexp_extract_all(text, pattern, 1), lambda d: CAST(d AS BIGINT)),
        lambda n: n > 0
    )
);

-- docs/format.md §8: of the answers in a table that repeat an id, the last copy is the one compared.
CREATE OR REPLACE MACRO last_copies(answer_table) AS TABLE
    SELECT * FROM query_table(answer_table)
    WHERE pos IN (SELECT max(pos) FROM query_table(answer_table) GROUP BY id);

-- docs/format.md §8: the facts of each answer in a table of answers, as a set of (id, slice, fact).
CREATE OR REPLACE MACRO answer_facts(answer_table) AS TABLE
    SELECT id, 'state' AS slice, 'state:' || state AS fact FROM query_table(answer_table)
    UNION SELECT id, 'labels', 'label:' || unnest(labels) FROM query_table(answer_table)
    UNION SELECT id, 'references', 'ref:' || unnest("references") FROM query_table(answer_table)
    UNION SELECT id, 'duplicate_targets', 'dup:' || unnest(duplicate_targets) FROM query_table(answer_table)
    UNION SELECT id, 'scope_contradictions', 'contradiction:' || unnest(scope_contradictions)
        FROM query_table(answer_table);

-- JSON values as the reference's Go decoder types them. A missing key and JSON null are
-- both the zero value; json_kind names a value's type for error messages. The values come
-- from DuckDB's JSON reader (minified), so the first character tells the type without
-- parsing a long string again.
CREATE OR REPLACE MACRO json_head(v) AS left(CAST(v AS VARCHAR), 1);
CREATE OR REPLACE MACRO json_kind(v) AS
    CASE json_head(v)
        WHEN '"' THEN 'string' WHEN '{' THEN 'object' WHEN '[' THEN 'array'
        WHEN 't' THEN 'boolean' WHEN 'f' THEN 'boolean' WHEN 'n' THEN 'null'
        ELSE coalesce('number' || left(json_head(v), 0), 'null')
    END;
-- The Go name of a value's type from DuckDB's json_type(), for error messages.
CREATE OR REPLACE MACRO json_type_name(t) AS
    CASE t WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array' WHEN 'VARCHAR' THEN 'string'
        WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' ELSE 'number' END;
CREATE OR REPLACE MACRO json_is_null(v) AS coalesce(json_head(v) = 'n', true);
CREATE OR REPLACE MACRO json_is_string(v) AS coalesce(json_head(v) = '"', false);
CREATE OR REPLACE MACRO json_is_array(v) AS coalesce(json_head(v) = '[', false);
CREATE OR REPLACE MACRO json_is_object(v) AS coalesce(json_head(v) = '{', false);
CREATE OR REPLACE MACRO json_is_int64(v) AS
    coalesce(regexp_full_match(CAST(v AS VARCHAR), '-?[0-9]+') AND TRY_CAST(CAST(v AS VARCHAR) AS BIGINT) IS NOT NULL, false);
-- The JSON kind of a value that DuckDB's reader was asked for as VARCHAR: 'null' for a
-- missing value or null; 'string' when the text cannot be another JSON value written out
-- as text (DuckDB does that to numbers, booleans, objects and arrays); else unknown (NULL).
CREATE OR REPLACE MACRO text_kind(t) AS
    CASE WHEN t IS NULL THEN 'null'
        WHEN left(t, 1) IN ('-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '{', '[', 't', 'f')
            AND json_valid(t) THEN NULL
        ELSE 'string' END;

-- docs/format.md §7/§8: how an answer is named in messages: its position, and its id if it has one.
CREATE OR REPLACE MACRO answer_place(pos, id) AS
    'answers[' || pos || ']' || CASE WHEN json_is_string(id) AND (id->>'$') <> ''
        THEN ' (id ''' || (id->>'$') || ''')' ELSE '' END;
-- Fast checks on a value's minified text that it certainly decodes as Go would want it
-- (null or missing; a list of strings or nulls; a list of nulls or integers of at most 18
-- digits, so within int64). A value that fails one is checked in full, for its message.
CREATE OR REPLACE MACRO json_surely_string(v) AS coalesce(json_head(v) IN ('"', 'n'), true);
CREATE OR REPLACE MACRO json_surely_string_list(v) AS coalesce(regexp_full_match(
    CAST(v AS VARCHAR), '\[\]|null|\[(?:"(?:[^"\\]|\\.)*"|null)(?:,(?:"(?:[^"\\]|\\.)*"|null))*\]'), true);
CREATE OR REPLACE MACRO json_surely_integer_list(v) AS coalesce(regexp_full_match(
    CAST(v AS VARCHAR), '\[\]|null|\[(?:-?[0-9]{1,18}|null)(?:,(?:-?[0-9]{1,18}|null))*\]'), true);
-- A dump's labels as read (STRUCT(name JSON)[] cast to JSON): missing, or an array of
-- nulls and objects whose name is a string or null (a label with no problem).
CREATE OR REPLACE MACRO json_surely_label_list(v) AS coalesce(regexp_full_match(CAST(v AS VARCHAR),
    '\[\]|null|\[(?:\{"name":(?:"(?:[^"\\]|\\.)*"|null)\}|null)(?:,(?:\{"name":(?:"(?:[^"\\]|\\.)*"|null)\}|null))*\]'), true);
CREATE OR REPLACE MACRO json_has_duplicate_keys(v) AS
    coalesce(json_type(v) = 'OBJECT' AND len(json_keys(v)) <> len(list_distinct(json_keys(v))), false);

-- docs/format.md §7/§8: what is wrong with a list field (value) of an answer or the aggregates, as
-- {o: check order, p: message} items: not an array (null is the empty list), or an
-- element that is neither null nor of the element type ('string' or 'integer'). items is
-- value cast to JSON[] when it is an array, computed once by the caller.
CREATE OR REPLACE MACRO list_problems(o, place, value, items, element) AS
    CASE WHEN NOT (json_is_array(value) OR json_is_null(value))
        THEN [{'o': o, 'p': place || ' must be an array, got ' || json_kind(value)}]
        ELSE list_filter(coalesce(list_transform(items, lambda x, i:
            CASE WHEN NOT json_is_null(x)
                    AND NOT CASE element WHEN 'string' THEN json_is_string(x) ELSE json_is_int64(x) END
                THEN {'o': o, 'p': place || '[' || (i - 1) || '] must be '
                    || CASE element WHEN 'string' THEN 'a string' ELSE 'an integer' END || ', got ' || json_kind(x)}
            END), []), lambda c: c IS NOT NULL)
    END;

-- docs/format.md §1/§6 timestamps, as Go's strict RFC 3339 parser reads them:
-- YYYY-MM-DDTHH:MM:SS[.digits](Z|+hh:mm|-hh:mm), day checked against the month, fraction
-- digits past the ninth dropped. rfc3339 returns NULL for anything else; otherwise the
-- text Go writes back (own offset, Z for zero, trailing fraction zeros trimmed) and the
-- instant as UTC epoch seconds + nanoseconds, for ordering. The shape is checked by one
-- regular expression without captures and the day by DuckDB's date cast; the parts are
-- then at fixed places (the fraction between the 20th character and the zone). Each
-- macro uses its argument many times: pass a column, not an expression to compute
-- (DuckDB computes a macro's expression again at each use).
CREATE OR REPLACE MACRO rfc3339_day(s) AS
    CASE WHEN regexp_full_match(s, '[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]'
            || '(?:[.][0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])')
        THEN TRY_CAST(left(s, 10) AS DATE) END;
CREATE OR REPLACE MACRO rfc3339_zone(s) AS CASE WHEN right(s, 1) = 'Z' THEN 'Z' ELSE right(s, 6) END;
CREATE OR REPLACE MACRO rfc3339_nanos(s) AS
    CASE WHEN s[20] = '.'
        THEN TRY_CAST(rpad(left(substr(s, 21, length(s) - 20 - length(rfc3339_zone(s))), 9), 9, '0') AS INTEGER)
        ELSE 0 END;
CREATE OR REPLACE MACRO rfc3339_offset(s) AS
    CASE WHEN right(s, 1) = 'Z' THEN 0
        ELSE (TRY_CAST(substr(s, -5, 2) AS INTEGER) * 3600 + TRY_CAST(substr(s, -2, 2) AS INTEGER) * 60)
            * CASE WHEN substr(s, -6, 1) = '-' THEN -1 ELSE 1 END
    END;
-- A timestamp text's checked day, fraction (as nanoseconds) and zone offset, each
-- computed once: the caller binds this in a subquery and passes it to rfc3339.
CREATE OR REPLACE MACRO rfc3339_parts(s) AS
    {'s': s, 'day': rfc3339_day(s), 'nanos': rfc3339_nanos(s), 'offset': rfc3339_offset(s)};
CREATE OR REPLACE MACRO rfc3339(p) AS
    CASE WHEN p.day IS NOT NULL THEN {
        'text': left(p.s, 19)
            || CASE WHEN p.nanos = 0 THEN '' ELSE '.' || rtrim(lpad(CAST(p.nanos AS VARCHAR), 9, '0'), '0') END
            || CASE WHEN p.offset = 0 THEN 'Z' ELSE rfc3339_zone(p.s) END,
        'epoch_s': CAST(p.day - DATE '1970-01-01' AS BIGINT) * 86400
            + TRY_CAST(substr(p.s, 12, 2) AS INTEGER) * 3600 + TRY_CAST(substr(p.s, 15, 2) AS INTEGER) * 60
            + TRY_CAST(substr(p.s, 18, 2) AS INTEGER) - p.offset,
        'nanos': p.nanos
    } END;


-- docs/format.md §6: a string as Go's encoding/json writes it. DuckDB's to_json escapes like Go
-- but for three differences: Go also escapes < > & (handled by replace), writes \u00XX in
-- lower-case hex, and escapes U+2028 / U+2029. Strings where the last two can matter (a
-- \u escape or a line / paragraph separator in the output) are rare and are encoded one
-- character at a time by go_json_char instead.
CREATE OR REPLACE MACRO go_json_char(ch) AS
    CASE
        WHEN ch = '"' THEN '\"' WHEN ch = '\' THEN '\\'
        WHEN ch = chr(10) THEN '\n' WHEN ch = chr(13) THEN '\r' WHEN ch = chr(9) THEN '\t'
        WHEN ch = chr(8) THEN '\b' WHEN ch = chr(12) THEN '\f'
        WHEN unicode(ch) < 32 THEN '\u00' || lpad(lower(to_hex(unicode(ch))), 2, '0')
        WHEN ch = '<' THEN '\u003c' WHEN ch = '>' THEN '\u003e' WHEN ch = '&' THEN '\u0026'
        WHEN ch = chr(8232) THEN '\u2028' WHEN ch = chr(8233) THEN '\u2029'
        ELSE ch
    END;
CREATE OR REPLACE MACRO go_json_escaped(s, t) AS
    CASE WHEN contains(t, '\u') OR contains(t, chr(8232)) OR contains(t, chr(8233))
        THEN '"' || array_to_string(list_transform(string_split(s, ''), lambda ch: go_json_char(ch)), '') || '"'
        ELSE replace(replace(replace(t, '<', '\u003c'), '>', '\u003e'), '&', '\u0026')
    END;
CREATE OR REPLACE MACRO go_json(s) AS
    CASE WHEN s IS NULL THEN 'null'
        ELSE list_transform([CAST(to_json(s) AS VARCHAR)], lambda t: go_json_escaped(s, t))[1]
    END;
-- A string made only of characters Go writes as themselves (printable ASCII but " \ < > &),
-- as the ids, splits, digests, timestamps and cue markers this project writes are by
-- construction.
CREATE OR REPLACE MACRO go_json_plain(s) AS CASE WHEN s IS NULL THEN 'null' ELSE '"' || s || '"' END;

-- docs/format.md §6: already-encoded JSON values (or "key": value members) laid out by MarshalIndent
-- between the brackets at the given indent ('[]' / '{}' when empty).
CREATE OR REPLACE MACRO go_json_block(items, indent, open, close) AS
    CASE WHEN len(items) = 0 THEN open || close
        ELSE open || chr(10) || indent || '  ' || array_to_string(items, ',' || chr(10) || indent || '  ')
            || chr(10) || indent || close
    END;
CREATE OR REPLACE MACRO go_json_list(items, indent) AS go_json_block(items, indent, '[', ']');
CREATE OR REPLACE MACRO go_json_map(items, indent) AS go_json_block(items, indent, '{', '}');

-- docs/format.md §1: what is wrong with a timestamp field, as {o: check order, p: message} (NULL
-- when nothing is); parsed is rfc3339 of the value's text, computed once by the caller.
CREATE OR REPLACE MACRO timestamp_problem(o, field, value, parsed, nullable) AS
    CASE
        WHEN nullable AND json_is_null(value) THEN NULL
        WHEN NOT json_is_string(value)
            THEN {'o': o, 'p': 'field ''' || field || ''' must be a string, got ' || json_kind(value)}
        WHEN parsed IS NULL
            THEN {'o': o, 'p': 'field ''' || field || ''': not an RFC 3339 timestamp: ''' || (value->>'$') || ''''}
    END;


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
SET VARIABLE s8f_duck_macros = true;
