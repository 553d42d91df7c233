-- The 10 latest createdAt instants, first the latest. The reference sorts the
-- records, in number order, with Go's sort.Slice, which is not stable: records with the
-- same instant land where its pdqsort leaves them. Without ties among the first ten (the
-- usual case) the instants alone give the order; newest_issue_ids_tied tells
-- otherwise, and then s8f_duck/gosort.py, which emulates the sort, replaces the table
-- (steps.SETTLED_BY_GO_SORT).

-- Whether some record of the first ten shares its instant with another record.
SET VARIABLE newest_issue_ids_tied = (
    WITH top AS (
        SELECT DISTINCT created_epoch_s, created_nanos
        FROM (SELECT created_epoch_s, created_nanos FROM scrubbed_issues ORDER BY 1 DESC, 2 DESC LIMIT 10)
    )
    SELECT count(*) > (SELECT count(*) FROM top)
    FROM scrubbed_issues SEMI JOIN top USING (created_epoch_s, created_nanos)
);

CREATE OR REPLACE TABLE newest_issue_ids AS
SELECT
    row_number() OVER (ORDER BY created_epoch_s DESC, created_nanos DESC, number) AS rank,
    issue_id(number) AS id
FROM scrubbed_issues
QUALIFY rank <= 10
ORDER BY rank;
