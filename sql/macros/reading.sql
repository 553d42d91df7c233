-- Macros that type JSON values as the reference's Go decoder does and name what it would
-- refuse (the checked reading of dumps, corpora, bundles and submissions), and RFC 3339
-- timestamps as Go's parser reads them.

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

-- Last: run_steps (s8f_duck/steps.py) skips this file on a connection that has run it.
SET VARIABLE s8f_duck_macros_reading = true;
