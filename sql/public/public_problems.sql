-- SPEC §6: why a file cannot be read as a public corpus, one row per problem, in the
-- order the loader reports them. Each record's checks are one list built in a single
-- pass, so no step holds a copy of the texts.
CREATE OR REPLACE TABLE public_problems AS
WITH
doc AS (SELECT * FROM public_document),
records AS (
    SELECT
        record,
        CASE WHEN kind = 'OBJECT' AND json_is_int64(number) THEN CAST(number->>'$' AS BIGINT) END AS n,
        CASE WHEN kind <> 'OBJECT' THEN [{'o': 1, 'p': 'expected an object, got ' || json_type_name(kind)}]
        ELSE list_concat(
            [CASE WHEN NOT json_is_int64(number) OR CAST(number->>'$' AS BIGINT) <= 0
                THEN {'o': 2, 'p': 'field ''number'' must be a positive integer'} END],
            list_transform(
                [{'f': 'id', 'v': id}, {'f': 'split', 'v': split}, {'f': 'title', 'v': title}, {'f': 'body', 'v': body},
                 {'f': 'url', 'v': url}, {'f': 'state', 'v': state}, {'f': 'title_sha256', 'v': title_sha256},
                 {'f': 'body_sha256', 'v': body_sha256}],
                lambda s, i: CASE WHEN NOT json_is_string(s.v)
                    THEN {'o': 3 + i, 'p': 'field ''' || s.f || ''' must be a string, got ' || json_kind(s.v)} END
            ),
            [
                timestamp_problem(12, 'created_at', created_at, rfc3339(created_at->>'$'), false),
                timestamp_problem(13, 'updated_at', updated_at, rfc3339(updated_at->>'$'), false),
                timestamp_problem(14, 'closed_at', closed_at, rfc3339(closed_at->>'$'), true),
                CASE WHEN NOT json_is_null(labels) AND (NOT json_is_array(labels)
                        OR NOT list_bool_and(list_transform(CAST(labels AS JSON[]), lambda l: json_is_string(l))))
                    THEN {'o': 15, 'p': 'field ''labels'' must be null or an array of strings'} END
            ]
        ) END AS checks
    FROM public_records
),
found AS (
    SELECT -1 AS record, NULL::BIGINT AS n, 0 AS check_order, 'expected a JSON object, got ' || json_type_name(kind) AS problem
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
    SELECT -1, NULL, 3, 'field ''records'' must be an array, got ' || json_type_name(records_kind)
    FROM doc WHERE kind = 'OBJECT' AND records_kind <> 'ARRAY'
    UNION ALL
    SELECT record, n, c.o, c.p
    FROM (SELECT record, n, unnest(list_filter(checks, lambda c: c IS NOT NULL)) AS c FROM records)
    UNION ALL
    SELECT record, n, 3, 'number ' || n || ' appears twice'
    FROM (SELECT record, n, min(record) OVER w AS first_record, count(*) OVER w AS copies
          FROM records WHERE n > 0 WINDOW w AS (PARTITION BY n))
    WHERE copies > 1 AND coalesce(record > first_record, true)  -- (records read in parts have no positions)
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'records[' || record || ']' || coalesce(' (number ' || n || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
