"""What a run is told of the clock (docs/runs.md): the creation window it is graded on
(`run --created-after`), the training cutoff of the model it uses (`run --model-cutoff`,
`runs --set-cutoff RUN DATE`), and the public corpus's record dates, recorded beside the
run (sql/runs/record_dates.sql, run_clock.sql) for the leaderboard's scores before and
after the cutoff and by creation month."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.grading.window import Window, WindowDates, check_cutoff, window_dates
from s8f_duck.pipeline.steps import CLOCK_RECORD_STEPS, connect, create_table, register, run_steps
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.locks import wait_for_lock
from s8f_duck.safety.paths import no_runs_database

EVERY_RECORD = "0001-01-01"  # a window holding every record: only the dates are wanted
CLOCK_TYPES = {"run_id": "VARCHAR", "created_after": "VARCHAR", "model_cutoff": "VARCHAR",
               "model_cutoff_at": "VARCHAR", "set_at": "TIMESTAMPTZ"}  # fmt: skip
_LOCK_WAIT_SECONDS = 60


def check_dates(created_after: str | None, model_cutoff: str | None) -> str | None:
    """Both dates checked before anything runs; the cutoff as RFC 3339 text (or None)."""
    if created_after is not None:
        check_cutoff(created_after, "--created-after")
    return None if model_cutoff is None else check_cutoff(model_cutoff, "--model-cutoff")


def read_dates(public: Path, created_after: str | None) -> WindowDates:
    """The public corpus's record dates, in the window created_after names (every record
    without one)."""
    return window_dates(Window(created_after or EVERY_RECORD, public), None)


def stage(con: duckdb.DuckDBPyConnection, run_id: str, dates: WindowDates, created_after: str | None,
          model_cutoff: str | None, cutoff_at: str | None) -> None:  # fmt: skip
    """The tables CLOCK_RECORD_STEPS read: run_dates and clock_given (a row when either
    date was given)."""
    register(con, {"run_dates": dates.dates})
    given = [] if created_after is None and model_cutoff is None else [
        (run_id, created_after, model_cutoff, cutoff_at, datetime.now(UTC))]  # fmt: skip
    create_table(con, "clock_given", CLOCK_TYPES, given)


def set_cutoff(runs_db: Path, run: str, model_cutoff: str) -> dict[str, Any]:
    """runs --set-cutoff: record the training cutoff of a recorded run's model (a run id, or
    a name given to exactly one run); the latest one given counts."""
    cutoff_at = check_cutoff(model_cutoff, "--set-cutoff")
    if not runs_db.is_file():
        raise UnusableInput(no_runs_database(runs_db))
    with connect() as con:
        _attach(con, runs_db)
        try:
            found = con.execute("SELECT run_id FROM runs.runs WHERE run_id = $1 OR name = $1 ORDER BY run_id",
                                [run]).fetchall()  # fmt: skip
        except duckdb.Error as exc:
            raise UnusableInput(f"{runs_db}: not a runs database of `s8f-duck run`: {exc}") from None
        exact = [r for (r,) in found if r == run]
        ids = exact or [r for (r,) in found]
        if not ids:
            raise UnusableInput(f"--set-cutoff {run!r}: no run with that id or name in {runs_db}")
        if len(ids) > 1:
            raise UnusableInput(f"--set-cutoff {run!r}: {len(ids)} runs have that name ({', '.join(ids)}); "
                                "give a run id")  # fmt: skip
        (run_id,) = ids
        has_clock = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'runs' "
                                "AND table_name = 'run_clock'").fetchone()[0]  # fmt: skip
        before = con.execute("SELECT created_after FROM runs.run_clock WHERE run_id = ? ORDER BY set_at DESC "
                             "LIMIT 1", [run_id]).fetchall() if has_clock else []  # fmt: skip
        created_after = before[0][0] if before else None
        create_table(con, "clock_given", CLOCK_TYPES,
                     [(run_id, created_after, model_cutoff, cutoff_at, datetime.now(UTC))])  # fmt: skip
        create_table(con, "run_dates", {"id": "VARCHAR", "number": "BIGINT", "created_at": "VARCHAR"}, [])
        con.execute("CREATE OR REPLACE TABLE run_meta AS SELECT public_sha256 FROM runs.runs WHERE run_id = ?",
                    [run_id])  # fmt: skip
        con.execute("BEGIN")
        try:
            run_steps(con, CLOCK_RECORD_STEPS)
            con.execute("COMMIT")
        except duckdb.Error as exc:
            con.execute("ROLLBACK")
            raise UnusableInput(f"{runs_db}: cannot record the cutoff: {exc}") from None
    return {"run_id": run_id, "model_cutoff": model_cutoff, "model_cutoff_at": cutoff_at}


def _attach(con: duckdb.DuckDBPyConnection, runs_db: Path) -> None:
    wait_for_lock(runs_db, lambda: con.execute("ATTACH ? AS runs", [str(runs_db)]), _LOCK_WAIT_SECONDS)
