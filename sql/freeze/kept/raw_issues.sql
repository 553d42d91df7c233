-- freeze --keep-splits: the dump without the records left out (facts/left_out.sql).
CREATE OR REPLACE TABLE raw_issues AS
SELECT * FROM raw_issues ANTI JOIN left_out USING (number);
