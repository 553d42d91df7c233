-- SPEC §6: why a file cannot be read as a public corpus, one row per problem, in the
-- order the loader reports them.
CREATE OR REPLACE TABLE public_problems AS
WITH
doc AS (SELECT * FROM public_document),
records AS (
    SELECT *, CASE WHEN json_is_int64(number) THEN CAST(number->>'$' AS BIGINT) END AS n FROM public_records
),
objects AS (SELECT * FROM records WHERE kind = 'OBJECT'),
strings(record, n, check_order, field, value) AS (
    SELECT record, n, 4, 'id', id FROM objects
    UNION ALL SELECT record, n, 5, 'split', split FROM objects
    UNION ALL SELECT record, n, 6, 'title', title FROM objects
    UNION ALL SELECT record, n, 7, 'body', body FROM objects
    UNION ALL SELECT record, n, 8, 'url', url FROM objects
    UNION ALL SELECT record, n, 9, 'state', state FROM objects
    UNION ALL SELECT record, n, 10, 'title_sha256', title_sha256 FROM objects
    UNION ALL SELECT record, n, 11, 'body_sha256', body_sha256 FROM objects
),
stamps(record, n, check_order, field, value, nullable) AS (
    SELECT record, n, 12, 'created_at', created_at, false FROM objects
    UNION ALL SELECT record, n, 13, 'updated_at', updated_at, false FROM objects
    UNION ALL SELECT record, n, 14, 'closed_at', closed_at, true FROM objects
),
found AS (
    SELECT -1 AS record, NULL::BIGINT AS n, 0 AS check_order, 'expected a JSON object, got ' || lower(kind) AS problem
    FROM doc WHERE kind <> 'OBJECT'
    UNION ALL
    SELECT -1, NULL, 1, 'field ''schema'' is ' || coalesce('''' || (schema->>'$') || '''', json_kind(schema))
        || ', expected ''fak-microcontext-corpus/1'''
    FROM doc WHERE kind = 'OBJECT' AND (schema->>'$') IS DISTINCT FROM 'fak-microcontext-corpus/1'
    UNION ALL
    SELECT -1, NULL, 2, 'field ''source'' must be a string, got ' || json_kind(source)
    FROM doc WHERE kind = 'OBJECT' AND NOT json_is_string(source)
    UNION ALL
    SELECT -1, NULL, 2, 'field ''frozen_at'' must be a string, got ' || json_kind(frozen_at)
    FROM doc WHERE kind = 'OBJECT' AND NOT json_is_string(frozen_at)
    UNION ALL
    SELECT -1, NULL, 3, 'field ''records'' must be an array, got ' || lower(records_kind)
    FROM doc WHERE kind = 'OBJECT' AND records_kind <> 'ARRAY'
    UNION ALL
    SELECT record, n, 1, 'expected an object, got ' || lower(kind) FROM records WHERE kind <> 'OBJECT'
    UNION ALL
    SELECT record, n, 2, 'field ''number'' must be a positive integer' FROM objects WHERE coalesce(n <= 0, true)
    UNION ALL
    SELECT record, n, 3, 'number ' || n || ' appears twice'
    FROM (SELECT record, n, min(record) OVER (PARTITION BY n) AS first_record FROM objects WHERE n > 0)
    WHERE record > first_record
    UNION ALL
    SELECT record, n, check_order, 'field ''' || field || ''' must be a string, got ' || json_kind(value)
    FROM strings WHERE NOT json_is_string(value)
    UNION ALL
    SELECT record, n, check_order, problem
    FROM (SELECT *, timestamp_problem(field, value, nullable) AS problem FROM stamps)
    WHERE problem IS NOT NULL
    UNION ALL
    SELECT record, n, 15, 'field ''labels'' must be null or an array of strings'
    FROM objects
    WHERE NOT json_is_null(labels)
      AND (NOT json_is_array(labels)
           OR NOT list_bool_and(list_transform(CAST(labels AS JSON[]), lambda l: json_is_string(l))))
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'records[' || record || ']' || coalesce(' (number ' || n || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
