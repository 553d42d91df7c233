-- SPEC §5: the 10 latest updatedAt instants, most recent first; ties by number, descending.
CREATE OR REPLACE TABLE most_recently_updated_issue_ids AS
SELECT
    row_number() OVER (ORDER BY updated_epoch_s DESC, updated_nanos DESC, number DESC) AS rank,
    issue_id(number) AS id
FROM scrubbed_issues
QUALIFY rank <= 10
ORDER BY rank;
