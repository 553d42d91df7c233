-- The model each request of a run through the proxy named, as the runs database records
-- it (run_request_models): semantic_runs compares them with the gold's model adjudicators.
CREATE OR REPLACE TABLE request_models AS SELECT * FROM runs.run_request_models;
