-- SPEC §1: why a raw dump (raw_json: one JSON value per array element) cannot be frozen,
-- one row per problem (record -1: the whole file), in the order the loader reports them.
CREATE OR REPLACE TABLE raw_problems AS
WITH
records AS (
    SELECT record, j, CASE WHEN json_is_int64(j->'number') THEN CAST(j->>'number' AS BIGINT) END AS number
    FROM raw_json
),
objects AS (SELECT * FROM records WHERE json_type(j) = 'OBJECT'),
strings(record, number, check_order, field, value, nullable) AS (
    SELECT record, number, 5, 'title', j->'title', false FROM objects
    UNION ALL SELECT record, number, 6, 'body', j->'body', true FROM objects
    UNION ALL SELECT record, number, 7, 'state', j->'state', false FROM objects
    UNION ALL SELECT record, number, 8, 'url', j->'url', false FROM objects
),
stamps(record, number, check_order, field, value, nullable) AS (
    SELECT record, number, 9, 'createdAt', j->'createdAt', false FROM objects
    UNION ALL SELECT record, number, 10, 'updatedAt', j->'updatedAt', false FROM objects
    UNION ALL SELECT record, number, 11, 'closedAt', j->'closedAt', true FROM objects
),
label_items AS (
    SELECT o.record, o.number, TRY_CAST(item.key AS INTEGER) AS position, item.value
    FROM objects AS o, json_each(o.j->'labels') AS item
    WHERE json_type(o.j->'labels') = 'ARRAY'
),
found AS (
    SELECT -1 AS record, NULL::BIGINT AS number, 0 AS check_order,
           count(*) || ' records, fewer than the minimum of ' || getvariable('min_records') AS problem
    FROM raw_json HAVING count(*) < getvariable('min_records')
    UNION ALL
    SELECT record, number, 1, 'expected an object, got ' || json_kind(j) FROM records WHERE json_type(j) <> 'OBJECT'
    UNION ALL
    SELECT record, number, 2, 'field ''number'' must be an integer, got ' || json_kind(j->'number')
    FROM objects WHERE number IS NULL
    UNION ALL
    SELECT record, number, 3, 'field ''number'' must be positive' FROM objects WHERE number <= 0
    UNION ALL
    SELECT record, number, 4, 'number ' || number || ' repeats record ' || first_record
    FROM (SELECT record, number, min(record) OVER (PARTITION BY number) AS first_record FROM objects WHERE number IS NOT NULL)
    WHERE record > first_record
    UNION ALL
    SELECT record, number, check_order,
           'field ''' || field || ''' ' || CASE WHEN json_type(value) = 'VARCHAR' THEN 'is empty'
               ELSE 'must be a string, got ' || json_kind(value) END
    FROM strings
    WHERE NOT (json_type(value) = 'VARCHAR' OR (nullable AND json_is_null(value)))
       OR (field IN ('title', 'url') AND value->>'$' = '')
    UNION ALL
    SELECT record, number, check_order,
           'field ''' || field || '''' || CASE WHEN json_type(value) = 'VARCHAR'
               THEN ': not an RFC 3339 timestamp: ''' || (value->>'$') || ''''
               ELSE ' must be a string, got ' || json_kind(value) END
    FROM stamps
    WHERE NOT (nullable AND json_is_null(value)) AND (json_type(value) IS DISTINCT FROM 'VARCHAR' OR rfc3339(value->>'$') IS NULL)
    UNION ALL
    SELECT record, number, 12, 'field ''labels'' must be an array, got ' || json_kind(j->'labels')
    FROM objects WHERE NOT (json_type(j->'labels') = 'ARRAY' OR json_is_null(j->'labels'))
    UNION ALL
    SELECT record, number, 13 + position,
           'labels[' || position || ']' || CASE WHEN json_type(value) = 'OBJECT'
               THEN ': field ''name'' must be a string, got ' || json_kind(value->'name')
               ELSE ' must be an object, got ' || json_kind(value) END
    FROM label_items
    WHERE NOT json_is_null(value)
      AND (json_type(value) <> 'OBJECT' OR NOT (json_type(value->'name') = 'VARCHAR' OR json_is_null(value->'name')))
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'record ' || record || coalesce(' (number ' || number || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
