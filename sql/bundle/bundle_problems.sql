-- docs/format.md §7/§8: why a document cannot be graded as an answer bundle or a submission, one
-- row per problem in the order the loader reports them: the document's own fields, each
-- answer's problems (found while typing it, in bundle_answers), the aggregates. Types
-- are checked as Go would decode them into the reference's structs: null is the zero
-- value (empty list or string, 0); a number where a string belongs, or a fraction where
-- an integer belongs, is unusable.
CREATE OR REPLACE TABLE bundle_problems AS
WITH
doc AS (SELECT * FROM bundle_document),
lists(check_order, place, value) AS (
    SELECT 3, 'aggregates.newest_issue_ids', aggregates->'newest_issue_ids' FROM doc
    UNION ALL SELECT 4, 'aggregates.most_recently_updated_issue_ids', aggregates->'most_recently_updated_issue_ids' FROM doc
),
maps(check_order, place, value) AS (
    SELECT 1, 'aggregates.state_counts', aggregates->'state_counts' FROM doc
    UNION ALL SELECT 2, 'aggregates.label_counts', aggregates->'label_counts' FROM doc
),
found AS (
    SELECT -1 AS pos, 0 AS check_order, 'the document must be a JSON object, got ' || json_type_name(kind) AS problem
    FROM doc WHERE kind <> 'OBJECT'
    UNION ALL
    SELECT -1, 1, 'field ''schema'' must be a string, got ' || json_kind(schema)
    FROM doc WHERE kind = 'OBJECT' AND NOT (json_is_string(schema) OR json_is_null(schema))
    UNION ALL
    SELECT -1, 1, 'field ''corpus_sha256'' must be a string, got ' || json_kind(corpus_sha256)
    FROM doc WHERE kind = 'OBJECT' AND NOT (json_is_string(corpus_sha256) OR json_is_null(corpus_sha256))
    UNION ALL
    SELECT -1, 2, 'answers must be an array, got ' || json_type_name(answers_kind)
    FROM doc WHERE kind = 'OBJECT' AND answers_kind NOT IN ('ARRAY', 'NULL')
    UNION ALL
    SELECT pos, c.o, c.p
    FROM (SELECT pos, unnest(problems) AS c FROM bundle_answers WHERE len(problems) > 0)
    UNION ALL
    SELECT 1e18::BIGINT, c.o, c.p
    FROM (SELECT unnest(list_problems(check_order, place, value, TRY_CAST(value AS JSON[]), 'string')) AS c FROM lists)
    UNION ALL
    SELECT 1e18::BIGINT - 1, 0, 'field ''aggregates'' must be an object, got ' || json_kind(aggregates)
    FROM doc WHERE kind = 'OBJECT' AND NOT (json_is_object(aggregates) OR json_is_null(aggregates))
    UNION ALL
    SELECT 1e18::BIGINT, check_order, place || ' must be an object, got ' || json_kind(value)
    FROM maps WHERE NOT (json_is_object(value) OR json_is_null(value))
    UNION ALL  -- json_each of a scalar subquery each: a lateral join copies the map for each entry
    SELECT 1e18::BIGINT, 1, 'aggregates.state_counts[''' || key || '''] must be an integer, got ' || json_kind(value)
    FROM json_each((SELECT value FROM maps WHERE check_order = 1 AND json_is_object(value)))
    WHERE NOT (json_is_int64(value) OR json_is_null(value))
    UNION ALL
    SELECT 1e18::BIGINT, 2, 'aggregates.label_counts[''' || key || '''] must be an integer, got ' || json_kind(value)
    FROM json_each((SELECT value FROM maps WHERE check_order = 2 AND json_is_object(value)))
    WHERE NOT (json_is_int64(value) OR json_is_null(value))
)
SELECT pos, check_order, problem FROM found ORDER BY pos, check_order, problem;
