-- Whether raw_fields needs Go's decoding after all: a label object with a repeated key,
-- where Go keeps the last value but DuckDB's -> returns the first.
CREATE OR REPLACE TABLE raw_decoding AS
SELECT coalesce(bool_or(list_bool_or(list_transform(CAST(labels AS JSON[]), lambda l: json_has_duplicate_keys(l)))), false)
    AS repeated_keys
FROM raw_fields
WHERE json_is_array(labels);
