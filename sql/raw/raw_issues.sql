-- SPEC §1: one typed row per raw record (after raw_problems found none). Timestamps are
-- kept as Go writes them back, with their instant for ordering; a null body is empty.
CREATE OR REPLACE TABLE raw_issues AS
WITH fields AS (
    SELECT
        CAST(j->>'number' AS BIGINT) AS number,
        j->>'title' AS title,
        coalesce(j->>'body', '') AS body,
        j->>'state' AS state,
        j->>'url' AS url,
        rfc3339(j->>'createdAt') AS created,
        rfc3339(j->>'updatedAt') AS updated,
        rfc3339(j->>'closedAt') AS closed
    FROM raw_json
)
SELECT
    number, title, body, state, url,
    created.text AS created_at, created.epoch_s AS created_epoch_s, created.nanos AS created_nanos,
    updated.text AS updated_at, updated.epoch_s AS updated_epoch_s, updated.nanos AS updated_nanos,
    closed.text AS closed_at
FROM fields
ORDER BY number;
