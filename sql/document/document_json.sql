-- A JSON document (public corpus, answer bundle, submission) as one JSON value.
-- (When DuckDB's reader refuses the bytes, the loader decodes them as Go does and fills
-- this same table; see s8f_duck/load.py.)
CREATE OR REPLACE TABLE document_json AS
SELECT j
FROM read_json(
    getvariable('input_path'), format = 'unstructured', records = false, columns = {'j': 'JSON'},
    maximum_object_size = getvariable('max_object_size')
);
