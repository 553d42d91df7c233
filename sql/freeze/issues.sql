-- docs/format.md §6 public corpus records, by number: the scrubbed source fields as given, the
-- split, labels sorted by byte order (NULL when there are none, written as `null`), and
-- hex SHA-256 digests of the scrubbed title and body. A view of the scrubbed texts and
-- public_fields, so the texts are not copied again.
CREATE OR REPLACE VIEW issues AS
SELECT
    issue_id(issue.number) AS id,
    fields.split,
    issue.number,
    issue.title,
    issue.body,
    issue.created_at,
    issue.updated_at,
    issue.url,
    issue.state,
    fields.labels,
    fields.labels_json,
    issue.closed_at,
    fields.title_sha256,
    fields.body_sha256,
    issue.created_epoch_s,
    issue.created_nanos,
    issue.updated_epoch_s,
    issue.updated_nanos
FROM scrubbed_issues AS issue
JOIN public_fields AS fields USING (number);
