-- docs/format.md §7: bundle/bundle_answers.sql's rows for every submission of a batch, keyed by it:
-- pos = 0-based position; null is the zero value ('' for strings, [] for lists; a null
-- answer reads as a row of them, like {}).
CREATE OR REPLACE TABLE submitted_answers AS
WITH each_answer AS (
    SELECT submission, unnest(range(len(answers))) AS pos, unnest(answers) AS a FROM submitted_documents
)
SELECT
    submission,
    pos,
    coalesce(a.id, '') AS id,
    coalesce(a.split, '') AS split,
    coalesce(a.state, '') AS state,
    coalesce(a.labels, []) AS labels,
    coalesce(a."references", []) AS "references",
    coalesce(a.duplicate_targets, []) AS duplicate_targets,
    coalesce(a.scope_contradictions, []) AS scope_contradictions
FROM each_answer;
