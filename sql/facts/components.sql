-- docs/format.md §4: connected components over "same exact title", "same exact body" and
-- "one references the other" (in-corpus references only), keyed by the smallest number.
-- Equal texts are found by their SHA-256 digests (text_digests), not by comparing texts.
-- Label propagation: each record starts as its own component and repeatedly takes the
-- smallest component of a neighbour; USING KEY keeps one row per record, and each
-- iteration only revisits the neighbours of records whose component just changed.
CREATE OR REPLACE TABLE components AS
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
labelled(number, component) USING KEY (number) AS (
    SELECT number, number FROM scrubbed_issues
    UNION
    SELECT edges.b, min(changed.component)
    FROM labelled AS changed
    JOIN edges ON edges.a = changed.number
    JOIN recurring.labelled AS current ON current.number = edges.b
    GROUP BY edges.b, current.component
    HAVING min(changed.component) < current.component
)
SELECT number, component FROM labelled ORDER BY number;
