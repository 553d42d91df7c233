-- docs/format.md §1: one typed row per raw record, in input order (sorting the texts would cost
-- more than every later ORDER BY number), with what is wrong with it: `problems` lists
-- {o: check order, p: message} for raw_problems, and the loader stops before any later
-- step when one is found. One pass over raw_fields checks and types each field, so the
-- texts are parsed once and never copied to a scratch table. (TRY_CAST: the typed columns
-- of a record with problems are never used, but must not fail the statement.) A record
-- whose fields pass the `fine` test, which implies every check below, has no problem:
-- only the others build the list (the typing of 1,000,000 issues: 12.1 CPU-seconds, not 13.7).
-- The state is upper-cased as Go's strings.ToUpper does it (go_upper), for the public
-- corpus as for the answers. Timestamps are kept as Go writes them back, with their instant for ordering; a null body
-- is empty; label_names keeps the label objects' names in input order (a null label or a
-- missing / null name is an empty name, dropped later in labels.sql).
CREATE OR REPLACE TABLE raw_issues AS
WITH fields AS (
    SELECT
        record, kind, number AS number_json, title_kind, body_kind, state AS state_json,
        url AS url_json, labels AS labels_json, created_at AS created_json, updated_at AS updated_json,
        closed_at AS closed_json, folded_key,
        CASE WHEN json_is_int64(number) THEN TRY_CAST(number->>'$' AS BIGINT) END AS number,
        title,
        coalesce(body, '') AS body,
        go_upper(state->>'$') AS state,
        url->>'$' AS url,
        rfc3339(created_parts) AS created,
        rfc3339(updated_parts) AS updated,
        rfc3339(closed_parts) AS closed,
        CASE WHEN json_is_array(labels) THEN TRY_CAST(labels AS JSON[]) END AS label_values
    FROM (  -- each timestamp's parts, and below them its text, bound once: each is used many times
        SELECT
            *,
            rfc3339_parts(created_text) AS created_parts,
            rfc3339_parts(updated_text) AS updated_parts,
            rfc3339_parts(closed_text) AS closed_parts
        FROM (
            SELECT *, created_at->>'$' AS created_text, updated_at->>'$' AS updated_text, closed_at->>'$' AS closed_text
            FROM raw_fields
        )
    )
),
checked AS (
    SELECT
        *,
        kind = 'OBJECT' AND json_is_int64(number_json) AND number > 0 AND title_kind = 'string' AND title <> ''
            AND body_kind IN ('string', 'null') AND json_is_string(state_json) AND json_is_string(url_json) AND url <> ''
            AND json_is_string(created_json) AND created IS NOT NULL
            AND json_is_string(updated_json) AND updated IS NOT NULL
            AND (json_is_null(closed_json) OR (json_is_string(closed_json) AND closed IS NOT NULL))
            AND json_surely_label_list(labels_json) AS fine
    FROM fields
)
SELECT
    record, number, title, body, state, url, folded_key,
    created.text AS created_at, created.epoch_s AS created_epoch_s, created.nanos AS created_nanos,
    updated.text AS updated_at, updated.epoch_s AS updated_epoch_s, updated.nanos AS updated_nanos,
    closed.text AS closed_at,
    coalesce(list_transform(label_values, lambda l: coalesce(l->>'name', '')), []) AS label_names,
    CASE WHEN fine THEN []
    WHEN kind <> 'OBJECT' THEN [{'o': 1, 'p': 'expected an object, got ' || json_type_name(kind)}]
    ELSE list_filter([
        CASE WHEN NOT json_is_int64(number_json)
            THEN {'o': 2, 'p': 'field ''number'' must be an integer, got ' || json_kind(number_json)} END,
        CASE WHEN number <= 0 THEN {'o': 3, 'p': 'field ''number'' must be positive'} END,
        CASE WHEN title_kind IS DISTINCT FROM 'string'
                THEN {'o': 5, 'p': 'field ''title'' must be a string, got ' || coalesce(title_kind, 'an unknown type')}
            WHEN title = '' THEN {'o': 5, 'p': 'field ''title'' is empty'} END,
        CASE WHEN body_kind IS NULL OR body_kind NOT IN ('string', 'null')
            THEN {'o': 6, 'p': 'field ''body'' must be a string, got ' || coalesce(body_kind, 'an unknown type')} END,
        CASE WHEN NOT json_is_string(state_json)
            THEN {'o': 7, 'p': 'field ''state'' must be a string, got ' || json_kind(state_json)} END,
        CASE WHEN NOT json_is_string(url_json) THEN {'o': 8, 'p': 'field ''url'' must be a string, got ' || json_kind(url_json)}
            WHEN url = '' THEN {'o': 8, 'p': 'field ''url'' is empty'} END,
        timestamp_problem(9, 'createdAt', created_json, created, false),
        timestamp_problem(10, 'updatedAt', updated_json, updated, false),
        timestamp_problem(11, 'closedAt', closed_json, closed, true),
        CASE WHEN NOT (json_is_array(labels_json) OR json_is_null(labels_json))
            THEN {'o': 12, 'p': 'field ''labels'' must be an array, got ' || json_kind(labels_json)} END
    ] || coalesce(list_transform(label_values, lambda l, i:
        CASE
            WHEN json_is_null(l) THEN NULL
            WHEN NOT json_is_object(l) THEN {'o': 12 + i, 'p': 'labels[' || (i - 1) || '] must be an object, got ' || json_kind(l)}
            WHEN NOT (json_is_string(l->'name') OR json_is_null(l->'name'))
                THEN {'o': 12 + i, 'p': 'labels[' || (i - 1) || ']: field ''name'' must be a string, got ' || json_kind(l->'name')}
        END), []), lambda c: c IS NOT NULL)
    END AS problems
FROM checked;
