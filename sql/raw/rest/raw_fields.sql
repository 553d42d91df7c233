-- GitHub's REST issue objects (rest_objects) as the `gh issue list --json` records that
-- raw_issues checks and types: the same issue as gh prints it. Pull requests are dropped:
-- an object whose pull_request is present and not null, with a non-null html_url in it
-- (early API versions put "pull_request": {"html_url": null} on plain issues). number,
-- title, body, labels and the timestamps as given (raw_issues reads a null body as empty
-- and labels by their name, as for gh); the state upper-cased as gh prints it (Go's way: go_upper); html_url
-- as the issue's url (the REST url is the API's). A view: raw_issues reads the dump
-- through it once. The sequence counts the pull requests as they are dropped, in that
-- same pass (the loader reports its last value), so the dump is parsed once.
CREATE OR REPLACE SEQUENCE pull_requests_dropped;
CREATE OR REPLACE VIEW raw_fields AS
SELECT
    record, kind, number, title, title_kind, body, body_kind,
    CASE WHEN json_is_string(state) THEN to_json(go_upper(state->>'$')) ELSE state END AS state,
    html_url AS url, labels, created_at, updated_at, closed_at,
    false AS folded_key  -- REST keys are matched exactly (snake_case, as the API writes them)
FROM rest_objects
WHERE CASE WHEN json_is_null(pull_request_url) THEN true ELSE nextval('pull_requests_dropped') < 0 END;
