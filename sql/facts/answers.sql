-- docs/format.md §6 answer bundle, one row per record by number: state (upper-cased as it was read), labels sorted
-- by byte order (DuckDB compares strings bytewise), facts distinct and ascending.
CREATE OR REPLACE TABLE answers AS
WITH
reference_lists AS (SELECT src AS number, list(dst ORDER BY dst) AS refs FROM reference_edges GROUP BY src),
duplicate_lists AS (SELECT src AS number, list(dst ORDER BY dst) AS dups FROM duplicate_edges GROUP BY src),
cue_lists AS (SELECT number, list(marker ORDER BY marker) AS cues FROM contradiction_cues GROUP BY number)
SELECT
    issue_id(issue.number) AS id,
    splits.split,
    issue.number,
    issue.state,  -- upper-cased as it was read (go_upper)
    coalesce(label_lists.labels, []) AS labels,
    coalesce(label_lists.labels_json, '[]') AS labels_json,
    coalesce(reference_lists.refs, []) AS "references",
    coalesce(duplicate_lists.dups, []) AS duplicate_targets,
    coalesce(cue_lists.cues, []) AS scope_contradictions
FROM scrubbed_issues AS issue
JOIN splits USING (number)
LEFT JOIN label_lists USING (number)
LEFT JOIN reference_lists USING (number)
LEFT JOIN duplicate_lists USING (number)
LEFT JOIN cue_lists USING (number)
ORDER BY issue.number;
