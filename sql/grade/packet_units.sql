-- docs/format.md §11: the records the semantic grade compares: those of the graded split
-- the gold has a label for (the records it excludes are not graded), numbered in the
-- bundle's order for the bootstrap (agreement_weights.sql draws from them).
CREATE OR REPLACE TABLE packet_units AS
SELECT (row_number() OVER (ORDER BY min(position)) - 1)::INTEGER AS record_index, id
FROM semantic_gold
WHERE split = graded_split()
GROUP BY id
ORDER BY record_index;
