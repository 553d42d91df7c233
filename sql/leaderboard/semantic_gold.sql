-- The gold a run's semantic grade rests on, per run and field (the bundle's policy, model
-- adjudicators, ceiling, gates), as the runs database records it (run_semantic_gold).
CREATE OR REPLACE TABLE semantic_gold AS SELECT * FROM runs.run_semantic_gold;
