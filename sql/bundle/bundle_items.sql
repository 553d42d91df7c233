-- An answer bundle's or submission's answers, one row each; pos = 0-based position.
CREATE OR REPLACE TABLE bundle_items AS
SELECT pos, a.*
FROM (SELECT generate_subscripts(answers, 1) - 1 AS pos, unnest(answers) AS a FROM bundle_document);
