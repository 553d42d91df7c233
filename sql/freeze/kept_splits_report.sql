-- freeze --keep-splits: the report's member keep_splits: the older corpus's digest
-- (variable older_sha256), its records, those missing from the new dump and those kept,
-- the new records in the corpus, and the new records left out (count and numbers).
CREATE OR REPLACE TABLE kept_splits_report AS
SELECT
    getvariable('older_sha256')::VARCHAR AS older_corpus_sha256,
    (SELECT count(*) FROM older_splits) AS older_records,
    (SELECT count(*) FROM older_splits ANTI JOIN splits USING (number)) AS older_records_missing,
    (SELECT count(*) FROM older_splits SEMI JOIN splits USING (number)) AS older_records_kept,
    (SELECT count(*) FROM splits ANTI JOIN older_splits USING (number)) AS new_records,
    (SELECT count(*) FROM left_out) AS new_records_left_out,
    (SELECT coalesce(list(number ORDER BY number), []) FROM left_out) AS left_out_numbers;
