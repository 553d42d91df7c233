-- docs/format.md §6 report counts, one row.
CREATE OR REPLACE TABLE report_counts AS
WITH
records AS (
    SELECT
        count(*) AS records,
        count(*) FILTER (WHERE split = 'train') AS train_records,
        count(*) FILTER (WHERE split = 'tune') AS tune_records,
        count(*) FILTER (WHERE split = 'test') AS test_records,
        count(*) FILTER (WHERE state = 'OPEN') AS open_records,
        count(*) FILTER (WHERE state = 'CLOSED') AS closed_records
    FROM answers
),
scrubbed AS (  -- a text that scrub_passes does not hold has no match and no mark
    SELECT
        count(*) FILTER (WHERE holds_scrub_mark(title, body)) AS scrubbed_records,
        coalesce(sum(scrub_matches), 0)::BIGINT AS scrubbed_matches
    FROM scrub_passes
)
SELECT
    records.*,
    (SELECT count(*) FROM reference_edges) AS reference_edges,
    (SELECT count(*) FROM duplicate_edges) AS duplicate_edges,
    (SELECT count(*) FROM contradiction_cues) AS scope_contradictions,
    scrubbed.*
FROM records, scrubbed;
