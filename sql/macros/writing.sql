-- Macros that write JSON as Go's encoding/json does (the public corpus, the answer bundle).

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

-- Last: run_steps (s8f_duck/steps.py) skips this file on a connection that has run it.
SET VARIABLE s8f_duck_macros_writing = true;
