-- docs/format.md §6: why a file cannot be read as a public corpus, one row per problem, in the
-- order the loader reports them: the document's own fields, each record's problems
-- (found while typing it, in raw_issues), a number that appears twice.
CREATE OR REPLACE TABLE public_problems AS
WITH
doc AS (SELECT * FROM public_document),
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
    SELECT record, number, c.o, c.p
    FROM (SELECT record, number, unnest(problems) AS c FROM raw_issues WHERE len(problems) > 0)
    UNION ALL
    SELECT record, number, 3, 'number ' || number || ' appears twice'
    FROM (SELECT record, number, min(record) OVER w AS first_record, count(*) OVER w AS copies
          FROM raw_issues WHERE number > 0 WINDOW w AS (PARTITION BY number))
    WHERE copies > 1 AND coalesce(record > first_record, true)  -- (records read in parts have no positions)
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'records[' || record || ']' || coalesce(' (number ' || n || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
