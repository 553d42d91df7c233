-- SPEC §1: one typed row per raw record (after raw_problems found none). Timestamps are
-- kept as Go writes them back, with their instant for ordering; a null body is empty.
CREATE OR REPLACE TABLE raw_issues AS
WITH fields AS (
    SELECT
        CAST(number->>'$' AS BIGINT) AS number,
        title->>'$' AS title,
        coalesce(body->>'$', '') AS body,
        state->>'$' AS state,
        url->>'$' AS url,
        rfc3339(created_at->>'$') AS created,
        rfc3339(updated_at->>'$') AS updated,
        rfc3339(closed_at->>'$') AS closed
    FROM raw_fields
)
SELECT
    number, title, body, state, url,
    created.text AS created_at, created.epoch_s AS created_epoch_s, created.nanos AS created_nanos,
    updated.text AS updated_at, updated.epoch_s AS updated_epoch_s, updated.nanos AS updated_nanos,
    closed.text AS closed_at
FROM fields
ORDER BY number;
