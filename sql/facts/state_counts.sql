-- docs/format.md §5: records per (upper-cased) state, over every split.
CREATE OR REPLACE TABLE state_counts AS
SELECT state, count(*) AS count FROM answers GROUP BY state ORDER BY state;
