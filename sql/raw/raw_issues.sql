-- SPEC §1: one typed row per raw record, in input order (sorting the texts would cost
-- more than every later ORDER BY number; raw_problems found nothing wrong). Timestamps are
-- kept as Go writes them back, with their instant for ordering; a null body is empty;
-- label_names keeps the label objects' names in input order (a null label or a missing
-- / null name is an empty name, dropped later in labels.sql).
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
        rfc3339(closed_at->>'$') AS closed,
        CASE WHEN json_is_array(labels)
            THEN list_transform(CAST(labels AS JSON[]), lambda l: coalesce(l->>'name', '')) END AS label_names
    FROM raw_fields
)
SELECT
    number, title, body, state, url,
    created.text AS created_at, created.epoch_s AS created_epoch_s, created.nanos AS created_nanos,
    updated.text AS updated_at, updated.epoch_s AS updated_epoch_s, updated.nanos AS updated_nanos,
    closed.text AS closed_at, coalesce(label_names, []) AS label_names
FROM fields;
