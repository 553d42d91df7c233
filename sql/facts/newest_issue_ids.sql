-- SPEC §5: the 10 latest createdAt instants, newest first; ties by number, descending.
CREATE OR REPLACE TABLE newest_issue_ids AS
SELECT
    row_number() OVER (ORDER BY created_epoch_s DESC, created_nanos DESC, number DESC) AS rank,
    issue_id(number) AS id
FROM scrubbed_issues
QUALIFY rank <= 10
ORDER BY rank;
