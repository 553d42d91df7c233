-- SPEC §6 report counts, one row.
CREATE OR REPLACE TABLE report_counts AS
SELECT
    (SELECT count(*) FROM answers) AS records,
    (SELECT count(*) FROM answers WHERE split = 'train') AS train_records,
    (SELECT count(*) FROM answers WHERE split = 'tune') AS tune_records,
    (SELECT count(*) FROM answers WHERE split = 'test') AS test_records,
    (SELECT count(*) FROM answers WHERE state = 'OPEN') AS open_records,
    (SELECT count(*) FROM answers WHERE state = 'CLOSED') AS closed_records,
    (SELECT count(*) FROM reference_edges) AS reference_edges,
    (SELECT count(*) FROM duplicate_edges) AS duplicate_edges,
    (SELECT count(*) FROM contradiction_cues) AS scope_contradictions,
    (SELECT count(*) FROM scrubbed_issues
        WHERE contains(title, '[redacted:public-corpus]') OR contains(body, '[redacted:public-corpus]')
    ) AS scrubbed_records,
    (SELECT coalesce(sum(scrub_matches), 0) FROM scrubbed_issues)::BIGINT AS scrubbed_matches;
