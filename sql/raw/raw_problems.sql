-- SPEC §1: why a raw dump cannot be frozen, one row per problem (record -1: the whole
-- file), in the order the loader reports them.
CREATE OR REPLACE TABLE raw_problems AS
WITH
records AS (
    SELECT *, CASE WHEN json_is_int64(number) THEN CAST(number->>'$' AS BIGINT) END AS n
    FROM raw_fields
),
objects AS (SELECT * FROM records WHERE kind = 'OBJECT'),
strings(record, n, check_order, field, value, nullable) AS (
    SELECT record, n, 5, 'title', title, false FROM objects
    UNION ALL SELECT record, n, 6, 'body', body, true FROM objects
    UNION ALL SELECT record, n, 7, 'state', state, false FROM objects
    UNION ALL SELECT record, n, 8, 'url', url, false FROM objects
),
stamps(record, n, check_order, field, value, nullable) AS (
    SELECT record, n, 9, 'createdAt', created_at, false FROM objects
    UNION ALL SELECT record, n, 10, 'updatedAt', updated_at, false FROM objects
    UNION ALL SELECT record, n, 11, 'closedAt', closed_at, true FROM objects
),
label_items AS (
    SELECT o.record, o.n, TRY_CAST(item.key AS INTEGER) AS position, item.value
    FROM objects AS o, json_each(o.labels) AS item
    WHERE json_is_array(o.labels)
),
found AS (
    SELECT -1 AS record, NULL::BIGINT AS n, 0 AS check_order,
           count(*) || ' records, fewer than the minimum of ' || getvariable('min_records') AS problem
    FROM raw_fields HAVING count(*) < getvariable('min_records')
    UNION ALL
    SELECT record, n, 1, 'expected an object, got ' || lower(CASE kind WHEN 'VARCHAR' THEN 'string'
        WHEN 'ARRAY' THEN 'array' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' ELSE 'number' END)
    FROM records WHERE kind <> 'OBJECT'
    UNION ALL
    SELECT record, n, 2, 'field ''number'' must be an integer, got ' || json_kind(number) FROM objects WHERE n IS NULL
    UNION ALL
    SELECT record, n, 3, 'field ''number'' must be positive' FROM objects WHERE n <= 0
    UNION ALL
    SELECT record, n, 4, 'number ' || n || ' repeats record ' || first_record
    FROM (SELECT record, n, min(record) OVER (PARTITION BY n) AS first_record FROM objects WHERE n IS NOT NULL)
    WHERE record > first_record
    UNION ALL
    SELECT record, n, check_order,
           'field ''' || field || ''' ' || CASE WHEN json_is_string(value) THEN 'is empty'
               ELSE 'must be a string, got ' || json_kind(value) END
    FROM strings
    WHERE NOT (json_is_string(value) OR (nullable AND json_is_null(value)))
       OR (field IN ('title', 'url') AND value->>'$' = '')
    UNION ALL
    SELECT record, n, check_order, problem
    FROM (SELECT *, timestamp_problem(field, value, nullable) AS problem FROM stamps)
    WHERE problem IS NOT NULL
    UNION ALL
    SELECT record, n, 12, 'field ''labels'' must be an array, got ' || json_kind(labels)
    FROM objects WHERE NOT (json_is_array(labels) OR json_is_null(labels))
    UNION ALL
    SELECT record, n, 13 + position,
           'labels[' || position || ']' || CASE WHEN json_is_object(value)
               THEN ': field ''name'' must be a string, got ' || json_kind(value->'name')
               ELSE ' must be an object, got ' || json_kind(value) END
    FROM label_items
    WHERE NOT json_is_null(value)
      AND (NOT json_is_object(value) OR NOT (json_is_string(value->'name') OR json_is_null(value->'name')))
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'record ' || record || coalesce(' (number ' || n || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
