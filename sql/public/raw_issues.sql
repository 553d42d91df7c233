-- A public corpus read back as freeze input: its records become raw_issues (their text is
-- already scrubbed; verify, baseline and explore then run freeze's own SQL on them).
CREATE OR REPLACE TABLE raw_issues AS
WITH fields AS (
    SELECT
        CAST(number->>'$' AS BIGINT) AS number,
        title->>'$' AS title,
        body->>'$' AS body,
        state->>'$' AS state,
        url->>'$' AS url,
        rfc3339(created_at->>'$') AS created,
        rfc3339(updated_at->>'$') AS updated,
        rfc3339(closed_at->>'$') AS closed,
        CASE WHEN json_is_array(labels) THEN CAST(labels AS VARCHAR[]) END AS label_names
    FROM public_records
)
SELECT
    number, title, body, state, url,
    created.text AS created_at, created.epoch_s AS created_epoch_s, created.nanos AS created_nanos,
    updated.text AS updated_at, updated.epoch_s AS updated_epoch_s, updated.nanos AS updated_nanos,
    closed.text AS closed_at, coalesce(label_names, []) AS label_names
FROM fields;
