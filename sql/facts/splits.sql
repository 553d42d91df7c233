-- docs/format.md §4: every record takes the split of its component (split_of in macros/corpus.sql).
CREATE OR REPLACE TABLE splits AS
SELECT number, component, split_of(component) AS split
FROM components
ORDER BY number;
