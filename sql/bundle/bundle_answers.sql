-- SPEC §6/§7: the per-record answers of a bundle or submission, pos = file order;
-- null is the zero value: '' for strings, [] for lists, '' or 0 for list elements.
-- Each answer is typed and checked in the same pass: `problems` lists {o: check order,
-- p: message} for bundle_problems, as Go would fail to decode the answer into the
-- reference's struct (a number where a string belongs, a fraction where an integer
-- belongs). The loader stops before any later step when one is found. (TRY_CAST: the
-- typed columns of an answer with problems are never used, but must not fail.)
CREATE OR REPLACE TABLE bundle_answers AS
WITH items AS (
    SELECT
        *,
        'answers[' || pos || ']' || CASE WHEN json_is_string(id) AND (id->>'$') <> ''
            THEN ' (id ''' || (id->>'$') || ''')' ELSE '' END AS place,
        TRY_CAST(labels AS JSON[]) AS label_items,
        TRY_CAST("references" AS JSON[]) AS reference_items,
        TRY_CAST(duplicate_targets AS JSON[]) AS duplicate_items,
        TRY_CAST(scope_contradictions AS JSON[]) AS contradiction_items
    FROM bundle_items
)
SELECT
    pos,
    coalesce(id->>'$', '') AS id,
    coalesce(split->>'$', '') AS split,
    coalesce(state->>'$', '') AS state,
    coalesce(list_transform(label_items, lambda x: coalesce(x->>'$', '')), []) AS labels,
    coalesce(list_transform(reference_items, lambda x: coalesce(TRY_CAST(x->>'$' AS BIGINT), 0)), []) AS "references",
    coalesce(list_transform(duplicate_items, lambda x: coalesce(TRY_CAST(x->>'$' AS BIGINT), 0)), [])
        AS duplicate_targets,
    coalesce(list_transform(contradiction_items, lambda x: coalesce(x->>'$', '')), []) AS scope_contradictions,
    CASE
        WHEN kind = 'NULL' THEN []
        WHEN kind <> 'OBJECT' THEN [{'o': 1, 'p': place || ' must be an object, got ' || json_type_name(kind)}]
        ELSE list_filter([
            CASE WHEN NOT (json_is_string(id) OR json_is_null(id))
                THEN {'o': 2, 'p': place || '.id must be a string, got ' || json_kind(id)} END,
            CASE WHEN NOT (json_is_string(split) OR json_is_null(split))
                THEN {'o': 3, 'p': place || '.split must be a string, got ' || json_kind(split)} END,
            CASE WHEN NOT (json_is_string(state) OR json_is_null(state))
                THEN {'o': 4, 'p': place || '.state must be a string, got ' || json_kind(state)} END
        ], lambda c: c IS NOT NULL)
            || list_problems(5, place || '.labels', labels, label_items, 'string')
            || list_problems(6, place || '.references', "references", reference_items, 'integer')
            || list_problems(7, place || '.duplicate_targets', duplicate_targets, duplicate_items, 'integer')
            || list_problems(8, place || '.scope_contradictions', scope_contradictions, contradiction_items, 'string')
    END AS problems
FROM items;
