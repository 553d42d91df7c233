-- Per run with a cutoff, resample (the group's draws, resample_weights: the same records
-- for before and after, so their difference is paired) and cell 'before' / 'after': the
-- primary score over the records drawn that fall in it.
CREATE OR REPLACE TABLE clock_resampled AS
WITH drawn AS (
    SELECT
        cells.run_index, cells.cell, weights.resample, facts.slice,
        sum(weights.weight * facts.gold) AS gold, sum(weights.weight * facts.fp) AS fp,
        sum(weights.weight * facts.fn) AS fn
    FROM clock_cells AS cells
    JOIN clock_cutoffs AS cutoffs USING (run_index)
    JOIN resample_weights AS weights ON weights.group_id = cutoffs.group_id AND weights.record_index = cells.record_index
    JOIN clock_record_slices AS facts ON facts.run_index = cells.run_index AND facts.record_index = cells.record_index
    WHERE cells.cell IN ('before', 'after')
    GROUP BY ALL
)
SELECT
    run_index, cell, resample,
    avg(2 * (gold - fn) / (2 * gold - fn + fp)) FILTER (WHERE gold > 0) AS primary_score
FROM drawn
GROUP BY ALL;
