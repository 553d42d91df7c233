-- Whether bundle_document needs Go's decoding after all: not exactly one JSON value in
-- the file (Go refuses the rest), or an aggregates object with a repeated key, where Go
-- keeps the last value but DuckDB's -> returns the first.
CREATE OR REPLACE TABLE bundle_decoding AS
SELECT count(*) <> 1 OR coalesce(bool_or(json_has_duplicate_keys(aggregates)), false) AS needs_go_decoding
FROM bundle_document;
