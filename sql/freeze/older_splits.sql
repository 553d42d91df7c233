-- freeze --keep-splits: each record of the older public corpus (the file at older_path,
-- already read and checked as a public corpus) with its split, which it keeps.
CREATE OR REPLACE TABLE older_splits AS
SELECT r.number, r.split
FROM (
    SELECT unnest(records) AS r
    FROM read_json(
        getvariable('older_path'),
        format = 'unstructured',
        records = true,
        columns = {'records': 'STRUCT(number BIGINT, split VARCHAR)[]'},
        maximum_object_size = getvariable('max_object_size')
    )
)
ORDER BY r.number;
