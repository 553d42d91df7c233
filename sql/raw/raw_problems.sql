-- SPEC §1: why a raw dump cannot be frozen, one row per problem (record -1: the whole
-- file), in the order the loader reports them. Each record's checks are one list built
-- in a single pass, so no step holds a copy of the texts.
CREATE OR REPLACE TABLE raw_problems AS
WITH
records AS (
    SELECT
        record,
        CASE WHEN kind = 'OBJECT' AND json_is_int64(number) THEN CAST(number->>'$' AS BIGINT) END AS n,
        CASE WHEN kind <> 'OBJECT' THEN [{'o': 1, 'p': 'expected an object, got ' || CASE kind WHEN 'VARCHAR' THEN 'string'
            WHEN 'ARRAY' THEN 'array' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' ELSE 'number' END}]
        ELSE [
            CASE WHEN NOT json_is_int64(number)
                THEN {'o': 2, 'p': 'field ''number'' must be an integer, got ' || json_kind(number)} END,
            CASE WHEN json_is_int64(number) AND CAST(number->>'$' AS BIGINT) <= 0
                THEN {'o': 3, 'p': 'field ''number'' must be positive'} END,
            CASE WHEN NOT json_is_string(title) THEN {'o': 5, 'p': 'field ''title'' must be a string, got ' || json_kind(title)}
                WHEN title->>'$' = '' THEN {'o': 5, 'p': 'field ''title'' is empty'} END,
            CASE WHEN NOT (json_is_string(body) OR json_is_null(body))
                THEN {'o': 6, 'p': 'field ''body'' must be a string, got ' || json_kind(body)} END,
            CASE WHEN NOT json_is_string(state) THEN {'o': 7, 'p': 'field ''state'' must be a string, got ' || json_kind(state)} END,
            CASE WHEN NOT json_is_string(url) THEN {'o': 8, 'p': 'field ''url'' must be a string, got ' || json_kind(url)}
                WHEN url->>'$' = '' THEN {'o': 8, 'p': 'field ''url'' is empty'} END,
            CASE WHEN timestamp_problem('createdAt', created_at, false) IS NOT NULL
                THEN {'o': 9, 'p': timestamp_problem('createdAt', created_at, false)} END,
            CASE WHEN timestamp_problem('updatedAt', updated_at, false) IS NOT NULL
                THEN {'o': 10, 'p': timestamp_problem('updatedAt', updated_at, false)} END,
            CASE WHEN timestamp_problem('closedAt', closed_at, true) IS NOT NULL
                THEN {'o': 11, 'p': timestamp_problem('closedAt', closed_at, true)} END,
            CASE WHEN NOT (json_is_array(labels) OR json_is_null(labels))
                THEN {'o': 12, 'p': 'field ''labels'' must be an array, got ' || json_kind(labels)} END
        ] || CASE WHEN json_is_array(labels) THEN list_transform(CAST(labels AS JSON[]), lambda l, i:
            CASE
                WHEN json_is_null(l) THEN NULL
                WHEN NOT json_is_object(l) THEN {'o': 12 + i, 'p': 'labels[' || (i - 1) || '] must be an object, got ' || json_kind(l)}
                WHEN NOT (json_is_string(l->'name') OR json_is_null(l->'name'))
                    THEN {'o': 12 + i, 'p': 'labels[' || (i - 1) || ']: field ''name'' must be a string, got ' || json_kind(l->'name')}
            END) ELSE [] END
        END AS checks
    FROM raw_fields
),
found AS (
    SELECT -1 AS record, NULL::BIGINT AS n, 0 AS check_order,
           count(*) || ' records, fewer than the minimum of ' || getvariable('min_records') AS problem
    FROM records HAVING count(*) < getvariable('min_records')
    UNION ALL
    SELECT record, n, c.o, c.p
    FROM (SELECT record, n, unnest(list_filter(checks, lambda c: c IS NOT NULL)) AS c FROM records)
    UNION ALL
    SELECT record, n, 4, 'number ' || n || ' repeats record ' || first_record
    FROM (SELECT record, n, min(record) OVER (PARTITION BY n) AS first_record FROM records WHERE n IS NOT NULL)
    WHERE record > first_record
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'record ' || record || coalesce(' (number ' || n || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
