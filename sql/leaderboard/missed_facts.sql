-- Per test-split run, record and slice: the gold facts it missed that the runs database
-- counts instead of listing (sql/runs/run_missed_facts.sql). A database written before
-- that table existed lists them all in run_facts: no_missed_facts.sql stands in for it.
CREATE OR REPLACE VIEW missed_facts AS
SELECT run_id, id, slice, missed FROM runs.run_missed_facts;
