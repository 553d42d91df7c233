-- docs/format.md §6/§7: the per-record answers of a bundle or submission, pos = file order;
-- null is the zero value: '' for strings, [] for lists, '' or 0 for list elements.
-- Each answer is typed and checked in the same pass: `problems` lists {o: check order,
-- p: message} for bundle_problems, as Go would fail to decode the answer into the
-- reference's struct (a number where a string belongs, a fraction where an integer
-- belongs). The loader stops before any later step when one is found. An answer whose
-- fields pass the fast json_surely_* checks has none; only the others are checked in
-- full. (TRY_CAST: the typed columns of an answer with problems are never used, but
-- must not fail.)
CREATE OR REPLACE TABLE bundle_answers AS
WITH items AS (
    SELECT
        *,
        kind IN ('OBJECT', 'NULL') AND json_surely_string(id) AND json_surely_string(split)
            AND json_surely_string(state) AND json_surely_string_list(labels)
            AND json_surely_integer_list("references") AND json_surely_integer_list(duplicate_targets)
            AND json_surely_string_list(scope_contradictions) AS fine
    FROM bundle_items
)
SELECT
    pos,
    coalesce(id->>'$', '') AS id,
    coalesce(split->>'$', '') AS split,
    coalesce(state->>'$', '') AS state,
    coalesce(list_transform(labels->>'$[*]', lambda x: coalesce(x, '')), []) AS labels,
    coalesce(list_transform(TRY_CAST("references"->'$[*]' AS BIGINT[]), lambda x: coalesce(x, 0)), []) AS "references",
    coalesce(list_transform(TRY_CAST(duplicate_targets->'$[*]' AS BIGINT[]), lambda x: coalesce(x, 0)), [])
        AS duplicate_targets,
    coalesce(list_transform(scope_contradictions->>'$[*]', lambda x: coalesce(x, '')), []) AS scope_contradictions,
    CASE
        WHEN fine THEN []
        WHEN kind <> 'OBJECT' THEN [{'o': 1, 'p': answer_place(pos, id) || ' must be an object, got ' || json_type_name(kind)}]
        ELSE list_transform([answer_place(pos, id)], lambda place: list_filter([
            CASE WHEN NOT (json_is_string(id) OR json_is_null(id))
                THEN {'o': 2, 'p': place || '.id must be a string, got ' || json_kind(id)} END,
            CASE WHEN NOT (json_is_string(split) OR json_is_null(split))
                THEN {'o': 3, 'p': place || '.split must be a string, got ' || json_kind(split)} END,
            CASE WHEN NOT (json_is_string(state) OR json_is_null(state))
                THEN {'o': 4, 'p': place || '.state must be a string, got ' || json_kind(state)} END
        ], lambda c: c IS NOT NULL)
            || list_problems(5, place || '.labels', labels, TRY_CAST(labels AS JSON[]), 'string')
            || list_problems(6, place || '.references', "references", TRY_CAST("references" AS JSON[]), 'integer')
            || list_problems(7, place || '.duplicate_targets', duplicate_targets,
                TRY_CAST(duplicate_targets AS JSON[]), 'integer')
            || list_problems(8, place || '.scope_contradictions', scope_contradictions,
                TRY_CAST(scope_contradictions AS JSON[]), 'string'))[1]
    END AS problems
FROM items;
