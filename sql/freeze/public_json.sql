-- docs/format.md §6 public corpus records, as the bytes Go's MarshalIndent writes them, by number:
-- the fields of `issues`, from scrubbed_issues and public_fields. Each chunk starts with
-- the separator that precedes it, so the file is the header, the chunks in order of
-- number, and the footer. Unordered here: the writer orders by number, and a second sort
-- of 300 MB of chunks would cost 0.2 s. (One concat() call: a chain of || would copy the
-- growing text once per piece.) Joined here rather than read through `issues`: through
-- the view, a range of the public write took a quarter more CPU.
CREATE OR REPLACE VIEW public_json AS
SELECT
    number,
    concat(
        CASE WHEN number = (SELECT min(number) FROM raw_issues) THEN chr(10) ELSE ',' || chr(10) END,
        '    {', chr(10),
        '      "id": ', go_json_plain(issue_id(number)), ',', chr(10),
        '      "split": ', go_json_plain(split), ',', chr(10),
        '      "number": ', number, ',', chr(10),
        '      "title": ', go_json_escaped(title, title_json), ',', chr(10),
        '      "body": ', go_json_escaped(body, body_json), ',', chr(10),
        '      "created_at": ', go_json_plain(created_at), ',', chr(10),
        '      "updated_at": ', go_json_plain(updated_at), ',', chr(10),
        '      "url": ', go_json(url), ',', chr(10),
        '      "state": ', go_json(state), ',', chr(10),
        '      "labels": ', coalesce(labels_json, 'null'), ',', chr(10),
        '      "closed_at": ', go_json_plain(closed_at), ',', chr(10),
        '      "title_sha256": ', go_json_plain(title_sha256), ',', chr(10),
        '      "body_sha256": ', go_json_plain(body_sha256), chr(10),
        '    }'
    ) AS chunk
FROM (
    SELECT *, CAST(to_json(title) AS VARCHAR) AS title_json, CAST(to_json(body) AS VARCHAR) AS body_json
    FROM scrubbed_issues
    JOIN public_fields USING (number)
);
