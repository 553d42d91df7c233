-- freeze --keep-splits: the new records that link, or whose cluster (new_clusters) links, to older records
-- of more than one split: kept, they would join groups of different splits (train to
-- test), so they are left out of the corpus. Made once (IF NOT EXISTS): the freeze removes
-- them and derives the splits again, and verify gives the report's list beforehand.
CREATE TABLE IF NOT EXISTS left_out AS
SELECT number FROM new_clusters WHERE len(older_splits) > 1 ORDER BY number;
