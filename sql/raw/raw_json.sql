-- SPEC §1: the dump, one JSON value per array element, record = its 0-based position.
-- (When DuckDB's reader refuses the bytes, the loader decodes them as Go does and fills
-- this same table; see s8f_duck/load.py.)
CREATE OR REPLACE TABLE raw_json AS
SELECT ordinality - 1 AS record, j
FROM read_json(
    getvariable('input_path'), format = 'array', records = false, columns = {'j': 'JSON'},
    maximum_object_size = 268435456
) WITH ORDINALITY;
