-- docs/format.md §6 the answer bundle's aggregates object, as Go's MarshalIndent writes it at depth
-- one: map keys sorted by byte order, top-10 lists newest first.
CREATE OR REPLACE VIEW aggregates_json AS
WITH
states AS (SELECT list(go_json(state) || ': ' || count ORDER BY state) AS items FROM state_counts),
labels AS (SELECT list(go_json(label) || ': ' || count ORDER BY label) AS items FROM label_counts),
newest AS (SELECT list(go_json(id) ORDER BY rank) AS items FROM newest_issue_ids),
updated AS (SELECT list(go_json(id) ORDER BY rank) AS items FROM most_recently_updated_issue_ids)
SELECT
    '{' || chr(10)
    || '    "state_counts": '
    || go_json_map(coalesce(states.items, []), '    ')
    || ',' || chr(10)
    || '    "label_counts": '
    || go_json_map(coalesce(labels.items, []), '    ')
    || ',' || chr(10)
    || '    "newest_issue_ids": ' || go_json_list(coalesce(newest.items, []), '    ') || ',' || chr(10)
    || '    "most_recently_updated_issue_ids": ' || go_json_list(coalesce(updated.items, []), '    ') || chr(10)
    || '  }' AS chunk
FROM states, labels, newest, updated;
