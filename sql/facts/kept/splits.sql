-- freeze --keep-splits (docs/format.md §4): an older record keeps its split; a new record
-- whose cluster (new_clusters) links to older records takes their split; any other takes
-- its component's (split_of). A new record linking to older records of several splits
-- gets none: it is left out (facts/left_out.sql) before the corpus is made.
CREATE OR REPLACE TABLE splits AS
SELECT
    components.number,
    components.component,
    coalesce(
        older_splits.split,
        CASE len(new_clusters.older_splits)
            WHEN 0 THEN split_of(components.component) WHEN 1 THEN new_clusters.older_splits[1]
        END
    ) AS split
FROM components
LEFT JOIN older_splits USING (number)
LEFT JOIN new_clusters USING (number)
ORDER BY components.number;
