-- docs/format.md §1: why a raw dump cannot be frozen, one row per problem (record -1: the whole
-- file), in the order the loader reports them: each record's own problems (found while
-- typing it, in raw_issues), a number that repeats an earlier record's, too few records
-- (at least one, whatever --min-records says; the message names the option, and how many
-- pull requests a REST dump held, which are dropped: a dump of pull requests only is no corpus).
-- (A dump read in parts has no record positions: its problems are only counted, and the
-- loader reads it again whole to name them.)
CREATE OR REPLACE TABLE raw_problems AS
WITH found AS (
    SELECT -1 AS record, NULL::BIGINT AS n, 0 AS check_order,
           CASE WHEN count(*) = 0 THEN 'no issue records to freeze'
               ELSE count(*) || ' records, fewer than the minimum of ' || getvariable('min_records')
                   || ' (freeze --min-records N takes a smaller dump)' END
           || coalesce(' (' || (SELECT last_value FROM duckdb_sequences()
                                WHERE sequence_name = 'pull_requests_dropped' AND schema_name = current_schema()
                                  AND last_value > 0)
                       || ' pull requests dropped: only issues are frozen)', '') AS problem
    FROM raw_issues HAVING count(*) < greatest(getvariable('min_records'), 1)
    UNION ALL
    SELECT record, number, c.o, c.p
    FROM (SELECT record, number, unnest(problems) AS c FROM raw_issues WHERE len(problems) > 0)
    UNION ALL
    SELECT record, number, 4, 'number ' || number || ' repeats record ' || first_record
    FROM (SELECT record, number, min(record) OVER w AS first_record, count(*) OVER w AS copies
          FROM raw_issues WHERE number IS NOT NULL WINDOW w AS (PARTITION BY number))
    WHERE copies > 1 AND coalesce(record > first_record, true)  -- (no positions: every copy)
)
SELECT
    record,
    check_order,
    CASE WHEN record < 0 THEN '' ELSE 'record ' || record || coalesce(' (number ' || n || ')', '') || ': ' END
        || problem AS problem
FROM found
ORDER BY record, check_order;
