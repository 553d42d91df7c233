-- Per run, what it was told of the clock: the creation window it was graded on (run
-- --created-after) and the training cutoff of the model it uses (run --model-cutoff, or
-- later runs --set-cutoff: a row each time; the latest counts), as given and as an instant.
-- Source: clock_given (one row, or none when nothing was given).
CREATE TABLE IF NOT EXISTS runs.run_clock (
    run_id VARCHAR NOT NULL,
    created_after VARCHAR,
    model_cutoff VARCHAR,
    model_cutoff_at TIMESTAMPTZ,
    set_at TIMESTAMPTZ NOT NULL
);
INSERT INTO runs.run_clock
SELECT run_id, created_after, model_cutoff, model_cutoff_at::TIMESTAMPTZ, set_at
FROM clock_given;
