-- One row per submission the grading service received, stored before it answers: the
-- team, when, the split, the body's digest and size, how it went (graded, unusable), the
-- operator's full grade, and for the test split the score the team is shown, which
-- follows the Ladder (Blum & Hardt, ICML 2015): it changes only when a submission beats
-- the team's shown best by more than one step, and then to the score rounded to the step.
-- Source: pending (one row, from the service) and the variable s8f_ladder_step.
CREATE TABLE IF NOT EXISTS service.submissions (
    id VARCHAR PRIMARY KEY,
    team VARCHAR NOT NULL,
    received_at TIMESTAMPTZ NOT NULL,
    split VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    bytes BIGINT NOT NULL,
    status VARCHAR NOT NULL,
    message VARCHAR,
    score DOUBLE,
    shown_score DOUBLE,
    improved BOOLEAN,
    grade_json VARCHAR
);
INSERT INTO service.submissions
WITH
step AS (SELECT getvariable('s8f_ladder_step')::DOUBLE AS step),
best AS (
    SELECT max(shown_score) AS best
    FROM service.submissions
    WHERE team = (SELECT team FROM pending) AND split = 'test' AND status = 'graded'
),
shown AS (
    SELECT
        pending.*,
        pending.split = 'test' AND pending.status = 'graded'
            AND (best.best IS NULL OR pending.score > best.best + step.step) AS improved,
        CASE
            WHEN pending.split <> 'test' OR pending.status <> 'graded' THEN NULL
            WHEN improved THEN round(pending.score / step.step) * step.step
            ELSE best.best
        END AS shown_score
    FROM pending, best, step
)
SELECT id, team, received_at, split, sha256, bytes, status, message, score, shown_score, improved, grade_json
FROM shown;
