-- docs/format.md §6 leak checks that need only the tables, one row (leak_checks adds the ones that
-- need the written files). Run while the public corpus is written.
CREATE OR REPLACE TABLE content_checks AS
WITH
public AS MATERIALIZED (  -- the public records' fields checked here, computed once
    SELECT number, id, split, title_sha256, body_sha256, state, closed_at, labels FROM issues
),
hashes AS (
    SELECT 'title' AS kind, title_sha256 AS hash, split FROM public
    UNION ALL
    SELECT 'body', body_sha256, split FROM public
),
straddling AS (SELECT kind, hash FROM hashes GROUP BY kind, hash HAVING count(DISTINCT split) > 1),
source_labels AS (
    SELECT number, list_sort(list_filter(label_names, lambda name: name <> '')) AS labels FROM raw_issues
),
altered AS (
    SELECT raw.number
    FROM raw_issues AS raw
    LEFT JOIN public USING (number)
    LEFT JOIN source_labels USING (number)
    WHERE public.number IS NULL
       OR public.state IS DISTINCT FROM raw.state
       OR public.closed_at IS DISTINCT FROM raw.closed_at
       OR coalesce(public.labels, []) IS DISTINCT FROM source_labels.labels
)
SELECT
    (SELECT count(*) = 0 FROM straddling) AS disjoint_train_tune_test_content,
    (SELECT count(DISTINCT id) = count(*) AND bool_and(split IN ('train', 'tune', 'test')) FROM public)
        AS disjoint_train_tune_test_ids,
    (SELECT count(*) = 0 FROM altered) AS public_preserves_source_state_labels_closed_at;
