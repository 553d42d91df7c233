-- Whether raw_json needs Go's decoding: an object with a repeated key, where Go keeps the
-- last value but DuckDB's -> returns the first. The loader then re-decodes the bytes.
CREATE OR REPLACE TABLE raw_decoding AS
SELECT count(*) > 0 AS repeated_keys
FROM raw_json AS r
WHERE json_has_duplicate_keys(r.j)
   OR (json_type(r.j->'labels') = 'ARRAY'
       AND list_bool_or(list_transform(CAST(r.j->'labels' AS JSON[]), lambda l: json_has_duplicate_keys(l))));
