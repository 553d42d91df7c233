-- A public corpus read back as freeze input: its records become raw_issues (their text is
-- already scrubbed; verify, baseline and explore then run freeze's own SQL on them).
-- Each record is typed and checked in the same pass (docs/format.md §6 types): `problems` lists
-- {o: check order, p: message} for public_problems, and the loader stops before any
-- later step when one is found. (TRY_CAST: the typed columns of a record with problems
-- are never used, but must not fail the statement.)
CREATE OR REPLACE TABLE raw_issues AS
WITH fields AS (
    SELECT
        record, kind, number AS number_json, created_at AS created_json, updated_at AS updated_json,
        closed_at AS closed_json, labels AS labels_json,
        [{'f': 'id', 'k': json_kind(id)}, {'f': 'split', 'k': json_kind(split)}, {'f': 'title', 'k': title_kind},
         {'f': 'body', 'k': body_kind}, {'f': 'url', 'k': json_kind(url)}, {'f': 'state', 'k': json_kind(state)},
         {'f': 'title_sha256', 'k': json_kind(title_sha256)}, {'f': 'body_sha256', 'k': json_kind(body_sha256)}]
            AS strings,
        CASE WHEN kind = 'OBJECT' AND json_is_int64(number) THEN TRY_CAST(number->>'$' AS BIGINT) END AS number,
        title,
        body,
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
            FROM public_records
        )
    )
)
SELECT
    record, number, title, body, state, url,
    created.text AS created_at, created.epoch_s AS created_epoch_s, created.nanos AS created_nanos,
    updated.text AS updated_at, updated.epoch_s AS updated_epoch_s, updated.nanos AS updated_nanos,
    closed.text AS closed_at, coalesce(list_transform(label_values, lambda l: l->>'$'), []) AS label_names,
    CASE WHEN kind <> 'OBJECT' THEN [{'o': 1, 'p': 'expected an object, got ' || json_type_name(kind)}]
    ELSE list_filter(list_concat(
        [CASE WHEN number IS NULL OR number <= 0 THEN {'o': 2, 'p': 'field ''number'' must be a positive integer'} END],
        list_transform(strings, lambda s, i: CASE WHEN s.k IS DISTINCT FROM 'string'
            THEN {'o': 3 + i, 'p': 'field ''' || s.f || ''' must be a string, got ' || coalesce(s.k, 'an unknown type')} END),
        [
            timestamp_problem(12, 'created_at', created_json, created, false),
            timestamp_problem(13, 'updated_at', updated_json, updated, false),
            timestamp_problem(14, 'closed_at', closed_json, closed, true),
            CASE WHEN NOT json_is_null(labels_json) AND (NOT json_is_array(labels_json)
                    OR NOT list_bool_and(list_transform(label_values, lambda l: json_is_string(l))))
                THEN {'o': 15, 'p': 'field ''labels'' must be null or an array of strings'} END
        ]
    ), lambda c: c IS NOT NULL) END AS problems
FROM fields;
