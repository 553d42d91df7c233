-- SPEC §6/§7: the per-record answers of a bundle or submission, in file order (pos);
-- null is the zero value: '' for strings, [] for lists, '' or 0 for list elements.
CREATE OR REPLACE TABLE bundle_answers AS
SELECT
    pos,
    coalesce(id->>'$', '') AS id,
    coalesce(split->>'$', '') AS split,
    coalesce(state->>'$', '') AS state,
    coalesce(list_transform(CAST(labels AS JSON[]), lambda x: coalesce(x->>'$', '')), []) AS labels,
    coalesce(list_transform(CAST("references" AS JSON[]), lambda x: coalesce(CAST(x->>'$' AS BIGINT), 0)), [])
        AS "references",
    coalesce(list_transform(CAST(duplicate_targets AS JSON[]), lambda x: coalesce(CAST(x->>'$' AS BIGINT), 0)), [])
        AS duplicate_targets,
    coalesce(list_transform(CAST(scope_contradictions AS JSON[]), lambda x: coalesce(x->>'$', '')), [])
        AS scope_contradictions
FROM bundle_items
ORDER BY pos;
