-- Per graded run and clock cell (clock_cells): its records and the leaderboard's primary
-- score on them: the mean F1 2tp/(2tp+fp+fn) of the derived slices, a slice with no gold
-- fact among them left out (NULL when none has any).
CREATE OR REPLACE TABLE clock_points AS
WITH
counts AS (SELECT run_index, cell, count(*) AS records FROM clock_cells GROUP BY ALL),
slices AS (
    SELECT cells.run_index, cells.cell, facts.slice, sum(facts.gold) AS gold, sum(facts.fp) AS fp,
        sum(facts.fn) AS fn
    FROM clock_cells AS cells
    JOIN clock_record_slices AS facts USING (run_index, record_index)
    GROUP BY ALL
),
scores AS (
    SELECT run_index, cell, avg(2 * (gold - fn) / (2 * gold - fn + fp)) FILTER (WHERE gold > 0) AS primary_score
    FROM slices
    GROUP BY ALL
)
SELECT counts.run_index, counts.cell, counts.records, scores.primary_score
FROM counts
LEFT JOIN scores USING (run_index, cell)
ORDER BY counts.run_index, counts.cell;
