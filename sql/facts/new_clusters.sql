-- freeze --keep-splits: the records that are not in the older corpus (older_splits), each
-- with the splits of the older records it would join (docs/format.md §4: components.sql's
-- links, same title, same body, a reference). A new record linked directly to older
-- records of several splits stands alone (it is left out). The others form clusters linked
-- among themselves, keyed by their smallest number, and `older_splits` lists the splits of
-- the older records any record of the cluster links to. Label propagation, as in
-- components.sql.
CREATE OR REPLACE TABLE new_clusters AS
WITH RECURSIVE
links(a, b) AS (
    SELECT number, min(number) OVER (PARTITION BY title_sha256) FROM text_digests
    UNION
    SELECT number, min(number) OVER (PARTITION BY body_sha256) FROM text_digests
    UNION
    SELECT src, dst FROM reference_edges WHERE dst IN (SELECT number FROM scrubbed_issues)
),
edges(a, b) AS (
    SELECT a, b FROM links WHERE a <> b
    UNION
    SELECT b, a FROM links WHERE a <> b
),
direct AS (  -- per new record, the splits of the older records it links to
    SELECT edges.a AS number, list(DISTINCT older.split ORDER BY older.split) AS older_splits
    FROM edges
    JOIN older_splits AS older ON older.number = edges.b
    WHERE edges.a NOT IN (SELECT number FROM older_splits)
    GROUP BY edges.a
),
bridging AS (SELECT number, older_splits FROM direct WHERE len(older_splits) > 1),
new_records AS (
    SELECT number FROM scrubbed_issues
    WHERE number NOT IN (SELECT number FROM older_splits) AND number NOT IN (SELECT number FROM bridging)
),
new_edges AS (
    SELECT a, b FROM edges
    WHERE a IN (SELECT number FROM new_records) AND b IN (SELECT number FROM new_records)
),
clustered(number, cluster) USING KEY (number) AS (
    SELECT number, number FROM new_records
    UNION
    SELECT new_edges.b, min(changed.cluster)
    FROM clustered AS changed
    JOIN new_edges ON new_edges.a = changed.number
    JOIN recurring.clustered AS current ON current.number = new_edges.b
    GROUP BY new_edges.b, current.cluster
    HAVING min(changed.cluster) < current.cluster
),
touched AS (
    SELECT clustered.cluster, list(DISTINCT split ORDER BY split) AS older_splits
    FROM clustered
    JOIN direct USING (number), unnest(direct.older_splits) AS s(split)
    GROUP BY clustered.cluster
)
SELECT clustered.number, clustered.cluster, coalesce(touched.older_splits, []) AS older_splits
FROM clustered
LEFT JOIN touched USING (cluster)
UNION ALL
SELECT number, number, older_splits FROM bridging
ORDER BY number;
