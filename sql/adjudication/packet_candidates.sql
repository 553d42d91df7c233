-- adjudicate packet --where: the public corpus's records as a packet builder filters them,
-- by the public corpus's own column names (docs/format.md §6): id, split, number, title,
-- body, state, labels (a sorted list; empty when none), created_at, updated_at, closed_at
-- (timestamps; closed_at NULL when open) and url.
CREATE OR REPLACE TABLE packet_candidates AS
SELECT
    'issue-' || issues.number AS id, splits.split, issues.number, issues.title, issues.body, issues.state,
    list_sort(raw.label_names) AS labels, issues.created_at::TIMESTAMPTZ AS created_at,
    issues.updated_at::TIMESTAMPTZ AS updated_at, issues.closed_at::TIMESTAMPTZ AS closed_at, issues.url
FROM scrubbed_issues AS issues
JOIN raw_issues AS raw USING (number)
JOIN splits USING (number)
ORDER BY issues.number;
