-- The 10 latest updatedAt instants, first the latest. The reference sorts the
-- records, in number order, with Go's sort.Slice, which is not stable: records with the
-- same instant land where its pdqsort leaves them. Without ties among the first ten (the
-- usual case) the instants alone give the order; most_recently_updated_issue_ids_tied tells
-- otherwise, and then s8f_duck/gosort.py, which emulates the sort, replaces the table
-- (steps.SETTLED_BY_GO_SORT).

-- Whether some record of the first ten shares its instant with another record.
SET VARIABLE most_recently_updated_issue_ids_tied = (
    WITH top AS (
        SELECT DISTINCT updated_epoch_s, updated_nanos
        FROM (SELECT updated_epoch_s, updated_nanos FROM scrubbed_issues ORDER BY 1 DESC, 2 DESC LIMIT 10)
    )
    SELECT count(*) > (SELECT count(*) FROM top)
    FROM scrubbed_issues SEMI JOIN top USING (updated_epoch_s, updated_nanos)
);

CREATE OR REPLACE TABLE most_recently_updated_issue_ids AS
SELECT
    row_number() OVER (ORDER BY updated_epoch_s DESC, updated_nanos DESC, number) AS rank,
    issue_id(number) AS id
FROM scrubbed_issues
QUALIFY rank <= 10
ORDER BY rank;
