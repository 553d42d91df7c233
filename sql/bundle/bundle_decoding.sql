-- Whether bundle_document needs Go's decoding after all: an aggregates object with a
-- repeated key, where Go keeps the last value but DuckDB's -> returns the first.
CREATE OR REPLACE TABLE bundle_decoding AS
SELECT coalesce(bool_or(json_has_duplicate_keys(aggregates)), false) AS repeated_keys FROM bundle_document;
