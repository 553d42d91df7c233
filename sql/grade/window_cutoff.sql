-- grade --created-after, run --model-cutoff: the given day (YYYY-MM-DD, the start of that
-- day in UTC), month (YYYY-MM, the start of its first day) or RFC 3339 time (the variable
-- window_created_after), as an instant; `cutoff` is NULL when the text is none of these
-- (the caller refuses it, exit 2).
CREATE OR REPLACE TABLE window_cutoff AS
WITH given AS (
    SELECT
        getvariable('window_created_after')::VARCHAR AS given,
        CASE WHEN regexp_full_match(getvariable('window_created_after')::VARCHAR, '[0-9]{4}-[0-9]{2}-[0-9]{2}')
            THEN getvariable('window_created_after')::VARCHAR || 'T00:00:00Z'
        WHEN regexp_full_match(getvariable('window_created_after')::VARCHAR, '[0-9]{4}-[0-9]{2}')
            THEN getvariable('window_created_after')::VARCHAR || '-01T00:00:00Z'
            ELSE getvariable('window_created_after')::VARCHAR END AS text
),
parts AS (SELECT given, rfc3339_parts(text) AS p FROM given)
SELECT given, rfc3339(p) AS cutoff FROM parts;
