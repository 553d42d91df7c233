-- SPEC §6: why a file cannot be read as a public corpus, one row per problem, in the
-- order the loader reports them.
CREATE OR REPLACE TABLE public_problems AS
WITH
doc AS (SELECT j FROM document_json),
records AS (
    SELECT record, r, CASE WHEN json_is_int64(r->'number') THEN CAST(r->>'number' AS BIGINT) END AS number
    FROM public_records
),
objects AS (SELECT * FROM records WHERE json_is_object(r)),
strings(record, number, check_order, field, value) AS (
    SELECT record, number, 4, 'id', r->'id' FROM objects
    UNION ALL SELECT record, number, 5, 'split', r->'split' FROM objects
    UNION ALL SELECT record, number, 6, 'title', r->'title' FROM objects
    UNION ALL SELECT record, number, 7, 'body', r->'body' FROM objects
    UNION ALL SELECT record, number, 8, 'url', r->'url' FROM objects
    UNION ALL SELECT record, number, 9, 'state', r->'state' FROM objects
    UNION ALL SELECT record, number, 10, 'title_sha256', r->'title_sha256' FROM objects
    UNION ALL SELECT record, number, 11, 'body_sha256', r->'body_sha256' FROM objects
),
stamps(record, number, check_order, field, value, nullable) AS (
    SELECT record, number, 12, 'created_at', r->'created_at', false FROM objects
    UNION ALL SELECT record, number, 13, 'updated_at', r->'updated_at', false FROM objects
    UNION ALL SELECT record, number, 14, 'closed_at', r->'closed_at', true FROM objects
),
found AS (
    SELECT -1 AS record, NULL::BIGINT AS number, 0 AS check_order,
           'expected a JSON object, got ' || json_kind(j) AS problem
    FROM doc WHERE NOT json_is_object(j)
    UNION ALL
    SELECT -1, NULL, 1, 'field ''schema'' is ' || coalesce('''' || (j->>'schema') || '''', json_kind(j->'schema'))
        || ', expected ''fak-microcontext-corpus/1'''
    FROM doc WHERE json_is_object(j) AND (j->>'schema') IS DISTINCT FROM 'fak-microcontext-corpus/1'
    UNION ALL
    SELECT -1, NULL, 2, 'field ''' || f.name || ''' must be a string, got ' || json_kind(j->f.name)
    FROM doc, (VALUES ('source'), ('frozen_at')) AS f(name)
    WHERE json_is_object(j) AND NOT json_is_string(j->f.name)
    UNION ALL
    SELECT -1, NULL, 3, 'field ''records'' must be an array, got ' || json_kind(j->'records')
    FROM doc WHERE json_is_object(j) AND NOT json_is_array(j->'records')
    UNION ALL
    SELECT record, number, 1, 'expected an object, got ' || json_kind(r) FROM records WHERE NOT json_is_object(r)
    UNION ALL
    SELECT record, number, 2, 'field ''number'' must be a positive integer' FROM objects WHERE coalesce(number <= 0, true)
    UNION ALL
    SELECT record, number, 3, 'number ' || number || ' appears twice'
    FROM (SELECT record, number, min(record) OVER (PARTITION BY number) AS first_record FROM objects WHERE number > 0)
    WHERE record > first_record
    UNION ALL
    SELECT record, number, check_order, 'field ''' || field || ''' must be a string, got ' || json_kind(value)
    FROM strings WHERE NOT json_is_string(value)
    UNION ALL
    SELECT record, number, check_order,
           'field ''' || field || '''' || CASE WHEN json_is_string(value)
               THEN ': not an RFC 3339 timestamp: ''' || (value->>'$') || ''''
               ELSE ' must be a string, got ' || json_kind(value) END
    FROM stamps
    WHERE NOT (nullable AND json_is_null(value)) AND (NOT json_is_string(value) OR rfc3339(value->>'$') IS NULL)
    UNION ALL
    SELECT record, number, 15, 'field ''labels'' must be null or an array of strings'
    FROM objects
    WHERE NOT json_is_null(r->'labels')
      AND (NOT json_is_array(r->'labels')
           OR NOT list_bool_and(list_transform(CAST(r->'labels' AS JSON[]), lambda l: json_is_string(l))))
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'records[' || record || ']' || coalesce(' (number ' || number || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
