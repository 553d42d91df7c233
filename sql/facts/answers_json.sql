-- docs/format.md §6 answer-bundle records, as the bytes Go's MarshalIndent writes them, in order of
-- number (the writer orders them); each chunk starts with the separator that precedes
-- it. Ids, splits and the cue markers (contradiction_cues.sql) need no escaping
-- (go_json_plain).
CREATE OR REPLACE VIEW answers_json AS
SELECT
    number,
    concat(
        CASE WHEN number = (SELECT min(number) FROM raw_issues) THEN chr(10) ELSE ',' || chr(10) END,
        '    {', chr(10),
        '      "id": ', go_json_plain(id), ',', chr(10),
        '      "split": ', go_json_plain(split), ',', chr(10),
        '      "state": ', go_json(state), ',', chr(10),
        '      "labels": ', labels_json, ',', chr(10),
        '      "references": ', go_json_list(list_transform("references", lambda n: CAST(n AS VARCHAR)), '      '),
        ',', chr(10),
        '      "duplicate_targets": ',
        go_json_list(list_transform(duplicate_targets, lambda n: CAST(n AS VARCHAR)), '      '), ',', chr(10),
        '      "scope_contradictions": ',
        go_json_list(list_transform(scope_contradictions, lambda c: go_json_plain(c)), '      '), chr(10),
        '    }'
    ) AS chunk
FROM answers;
