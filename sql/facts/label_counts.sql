-- docs/format.md §5: occurrences per label, over every split.
CREATE OR REPLACE TABLE label_counts AS
SELECT label, count(*) AS count FROM labels GROUP BY label ORDER BY label;
