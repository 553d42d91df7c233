"""A creation window in a grade (`grade --created-after DATE --public PUBLIC.json`): the
grade's record and slice figures over the graded records created at or after DATE, for
models whose training may have seen the older ones (sql/grade/window_*.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.pipeline.steps import (
    WINDOW_DATE_STEPS,
    WINDOW_SEMANTIC_STEPS,
    WINDOW_STEPS,
    connect,
    register,
    rows,
    run_steps,
)
from s8f_duck.reading.load import load_public
from s8f_duck.reading.scan import file_sha256
from s8f_duck.safety.errors import UnusableInput

RESAMPLES, SEED = 1000, 0  # as the leaderboard's and the semantic grade's intervals


@dataclass(frozen=True)
class Window:
    """The records of a public corpus created at or after a day or time."""

    created_after: str
    public_path: Path


def parse_cutoff(con: duckdb.DuckDBPyConnection, created_after: str, option: str = "--created-after") -> str:
    """The cutoff as RFC 3339 text (sql/grade/window_cutoff.sql); a text that is neither a day
    nor an RFC 3339 time is unusable input."""
    run_steps(con, ["macros/reading"])
    con.execute("SET VARIABLE window_created_after = ?", [created_after])
    run_steps(con, WINDOW_DATE_STEPS[:1])
    (cutoff,) = con.execute("SELECT cutoff.text FROM window_cutoff").fetchone()
    if cutoff is None:
        raise UnusableInput(f"{option}: {created_after!r} is not a day (YYYY-MM-DD), a month (YYYY-MM) or an "
                            "RFC 3339 time")  # fmt: skip
    return cutoff


def check_cutoff(created_after: str, option: str = "--created-after") -> str:
    """parse_cutoff on a connection of its own."""
    with connect() as con:
        return parse_cutoff(con, created_after, option)


@dataclass(frozen=True)
class WindowDates:
    """A window read: its cutoff as RFC 3339 text, the public corpus's digest, and its
    records' creation times and whether each is in the window (an Arrow table)."""

    window: Window
    cutoff: str
    public_sha256: str
    dates: Any


def window_dates(window: Window, corpus_sha256: str | None) -> WindowDates:
    """The window read from its public corpus, which must be the one the answers are bound to."""
    with connect() as con:
        cutoff = parse_cutoff(con, window.created_after)
        digest = file_sha256(window.public_path)
        if corpus_sha256 is not None and digest != corpus_sha256:
            raise UnusableInput(f"--public: {window.public_path} is not the corpus the answers are bound to "
                                f"(its SHA-256 is {digest}, the answers' corpus_sha256 {corpus_sha256})")  # fmt: skip
        load_public(con, window.public_path)
        run_steps(con, WINDOW_DATE_STEPS[1:])
        dates = con.sql("SELECT id, number, created_at, in_window FROM window_dates").to_arrow_table()
    return WindowDates(window, cutoff, digest, dates)


def semantic_member(con: duckdb.DuckDBPyConnection, read: WindowDates) -> list[dict[str, Any]]:
    """The window's `semantic` member, on a connection holding a semantic grade's tables
    (semantic.grade_into): per rubric field, its records, answered and accuracy in the window."""
    register(con, {"window_dates": read.dates})
    run_steps(con, WINDOW_SEMANTIC_STEPS)
    return rows(con, "SELECT * FROM window_semantic")


def window_reports(con: duckdb.DuckDBPyConnection, read: WindowDates) -> dict[int, dict[str, Any]]:
    """Each graded submission's `window` member, from the grade tables on con and the
    window's dates."""
    con.register("_window_dates", read.dates)
    con.execute("CREATE OR REPLACE TABLE window_dates AS SELECT * FROM _window_dates")
    con.unregister("_window_dates")
    con.execute("SET VARIABLE window_resamples = ?", [RESAMPLES])
    con.execute("SET VARIABLE window_seed = ?", [SEED])
    run_steps(con, WINDOW_STEPS)
    primary = {r.pop("submission"): r for r in rows(con, "SELECT * FROM window_primary")}
    slices: dict[int, list[dict[str, Any]]] = {}
    for row in rows(con, "SELECT * EXCLUDE (ordinal) FROM window_slices"):
        slices.setdefault(row.pop("submission"), []).append(row)
    reports = {}
    for row in rows(con, "SELECT * FROM window_grade"):
        submission = row.pop("submission")
        reports[submission] = {
            "created_after": read.window.created_after,
            "cutoff": read.cutoff,
            "public_sha256": read.public_sha256,
            **row,
            **primary[submission],
            "resamples": RESAMPLES,
            "seed": SEED,
            "slices": slices[submission],
            "aggregates_windowed": False,
        }
    return reports
