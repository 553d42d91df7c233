-- docs/format.md §2: every raw issue with its scrubbed title and body (scrub_passes holds the few
-- that the redaction map changed; a view, so the texts are not copied).
CREATE OR REPLACE VIEW scrubbed_issues AS
SELECT
    raw.* EXCLUDE (label_names) REPLACE (
        coalesce(scrubbed.title, raw.title) AS title,
        coalesce(scrubbed.body, raw.body) AS body
    ),
    coalesce(scrubbed.scrub_matches, 0) AS scrub_matches
FROM raw_issues AS raw
LEFT JOIN scrub_passes AS scrubbed USING (number);
