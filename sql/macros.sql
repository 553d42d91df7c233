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

-- JSON values as the reference's Go decoder types them. A missing key and JSON null are
-- both the zero value; json_kind names a value's type for error messages.
CREATE OR REPLACE MACRO json_kind(v) AS
    CASE json_type(v)
        WHEN 'VARCHAR' THEN 'string' WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array'
        WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null'
        ELSE coalesce('number' || left(json_type(v), 0), 'null')
    END;
CREATE OR REPLACE MACRO json_is_null(v) AS coalesce(json_type(v) = 'NULL', true);
CREATE OR REPLACE MACRO json_is_string(v) AS coalesce(json_type(v) = 'VARCHAR', false);
CREATE OR REPLACE MACRO json_is_array(v) AS coalesce(json_type(v) = 'ARRAY', false);
CREATE OR REPLACE MACRO json_is_object(v) AS coalesce(json_type(v) = 'OBJECT', false);
CREATE OR REPLACE MACRO json_is_int64(v) AS
    coalesce(json_type(v) IN ('BIGINT', 'UBIGINT') AND TRY_CAST(v->>'$' AS BIGINT) IS NOT NULL, false);
CREATE OR REPLACE MACRO json_has_duplicate_keys(v) AS
    coalesce(json_type(v) = 'OBJECT' AND len(json_keys(v)) <> len(list_distinct(json_keys(v))), false);

-- SPEC §1/§6 timestamps, as Go's strict RFC 3339 parser reads them:
-- YYYY-MM-DDTHH:MM:SS[.digits](Z|+hh:mm|-hh:mm), day checked against the month, fraction
-- digits past the ninth dropped. rfc3339 returns NULL for anything else; otherwise the
-- text Go writes back (own offset, Z for zero, trailing fraction zeros trimmed) and the
-- instant as UTC epoch seconds + nanoseconds, for ordering.
CREATE OR REPLACE MACRO rfc3339_fields(s) AS regexp_extract(
    s,
    '^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:[.]([0-9]+))?(Z|[+-][0-9]{2}:[0-9]{2})$',
    ['y', 'mo', 'd', 'h', 'mi', 's', 'frac', 'zone']
);
CREATE OR REPLACE MACRO rfc3339_int(f, key) AS TRY_CAST(struct_extract(f, key) AS INTEGER);
CREATE OR REPLACE MACRO rfc3339_offset(zone) AS
    CASE WHEN zone = 'Z' THEN 0
        ELSE (TRY_CAST(substr(zone, 2, 2) AS INTEGER) * 3600 + TRY_CAST(substr(zone, 5, 2) AS INTEGER) * 60)
            * CASE WHEN zone[1] = '-' THEN -1 ELSE 1 END
    END;
CREATE OR REPLACE MACRO rfc3339_nanos(frac) AS
    CASE WHEN frac = '' THEN 0 ELSE TRY_CAST(rpad(left(frac, 9), 9, '0') AS INTEGER) END;
CREATE OR REPLACE MACRO rfc3339_valid(f) AS coalesce(
    f.zone <> ''
    AND (f.zone = 'Z' OR (TRY_CAST(substr(f.zone, 2, 2) AS INTEGER) <= 23 AND TRY_CAST(substr(f.zone, 5, 2) AS INTEGER) <= 59))
    AND rfc3339_int(f, 'mo') BETWEEN 1 AND 12
    AND rfc3339_int(f, 'h') <= 23 AND rfc3339_int(f, 'mi') <= 59 AND rfc3339_int(f, 's') <= 59
    AND rfc3339_int(f, 'd') BETWEEN 1 AND CASE
        WHEN rfc3339_int(f, 'mo') = 2 THEN
            CASE WHEN rfc3339_int(f, 'y') % 4 = 0
                AND (rfc3339_int(f, 'y') % 100 <> 0 OR rfc3339_int(f, 'y') % 400 = 0) THEN 29 ELSE 28 END
        WHEN rfc3339_int(f, 'mo') IN (4, 6, 9, 11) THEN 30
        ELSE 31 END,
    false
);
CREATE OR REPLACE MACRO rfc3339_from_fields(f, s) AS
    CASE WHEN rfc3339_valid(f) THEN {
        'text': left(s, 19)
            || CASE WHEN rfc3339_nanos(f.frac) = 0 THEN ''
                ELSE '.' || rtrim(lpad(CAST(rfc3339_nanos(f.frac) AS VARCHAR), 9, '0'), '0') END
            || CASE WHEN rfc3339_offset(f.zone) = 0 THEN 'Z' ELSE f.zone END,
        'epoch_s': CAST(make_date(rfc3339_int(f, 'y'), rfc3339_int(f, 'mo'), rfc3339_int(f, 'd')) - DATE '1970-01-01' AS BIGINT)
            * 86400 + rfc3339_int(f, 'h') * 3600 + rfc3339_int(f, 'mi') * 60 + rfc3339_int(f, 's')
            - rfc3339_offset(f.zone),
        'nanos': rfc3339_nanos(f.frac)
    } END;
CREATE OR REPLACE MACRO rfc3339(s) AS rfc3339_from_fields(rfc3339_fields(s), s);

-- SPEC §6: a string as Go's encoding/json writes it. DuckDB's to_json escapes exactly like
-- Go except that Go writes \u00XX in lower-case hex and also escapes < > & U+2028 U+2029.
CREATE OR REPLACE MACRO go_escapes(t) AS
    CASE WHEN regexp_matches(t, '[<>&\x{2028}\x{2029}]|\\u00[01][A-F]') THEN
        replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
            t, '<', '\u003c'), '>', '\u003e'), '&', '\u0026'), chr(8232), '\u2028'), chr(8233), '\u2029'),
            '\u000B', '\u000b'), '\u000E', '\u000e'), '\u000F', '\u000f'), '\u001A', '\u001a'),
            '\u001B', '\u001b'), '\u001C', '\u001c'), '\u001D', '\u001d'), '\u001E', '\u001e'), '\u001F', '\u001f')
    ELSE t END;
CREATE OR REPLACE MACRO go_json(s) AS CASE WHEN s IS NULL THEN 'null' ELSE go_escapes(CAST(to_json(s) AS VARCHAR)) END;

-- SPEC §6: already-encoded JSON values (or "key": value members) laid out by MarshalIndent
-- between the brackets at the given indent ('[]' / '{}' when empty).
CREATE OR REPLACE MACRO go_json_block(items, indent, open, close) AS
    CASE WHEN len(items) = 0 THEN open || close
        ELSE open || chr(10) || indent || '  ' || array_to_string(items, ',' || chr(10) || indent || '  ')
            || chr(10) || indent || close
    END;
CREATE OR REPLACE MACRO go_json_list(items, indent) AS go_json_block(items, indent, '[', ']');
CREATE OR REPLACE MACRO go_json_map(items, indent) AS go_json_block(items, indent, '{', '}');
