-- Each record of a public corpus (loaded as raw_issues) with its creation instant and
-- whether it lies in the window: created at or after window_cutoff, compared as instants.
CREATE OR REPLACE TABLE window_dates AS
SELECT
    'issue-' || issues.number AS id,
    issues.number,
    issues.created_at,
    (issues.created_epoch_s, issues.created_nanos) >= (cutoff.cutoff.epoch_s, cutoff.cutoff.nanos) AS in_window
FROM raw_issues AS issues
CROSS JOIN window_cutoff AS cutoff
ORDER BY issues.number;
