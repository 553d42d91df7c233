"""`freeze --keep-splits OLD_PUBLIC.json` (and verify's): a corpus frozen again from a newer
dump keeps every older record's split, so runs on the two versions compare on the same
records. The rules are SQL: sql/freeze/older_splits.sql, sql/facts/left_out.sql,
sql/facts/kept/splits.sql, sql/freeze/kept/raw_issues.sql, sql/freeze/kept_splits_report.sql."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.pipeline.steps import (
    FREEZE_STEPS,
    KEPT_FREEZE_STEPS,
    KEPT_REPORT_STEPS,
    LEFT_OUT_STEPS,
    OLDER_SPLITS_STEPS,
    connect,
    create_table,
    rows,
    run_steps,
)
from s8f_duck.reading.load import load_public
from s8f_duck.reading.scan import file_sha256
from s8f_duck.reading.schemas import CORPUS_SCHEMA
from s8f_duck.safety.errors import UnusableInput

OPTION = "--keep-splits"
SPLIT_NAMES = ("train", "tune", "test")


@dataclass(frozen=True)
class Older:
    """The older public corpus whose splits are kept; left_out, for verify: the numbers the
    report says were left out (a freeze finds them itself)."""

    path: Path
    sha256: str
    left_out: tuple[int, ...] | None = None


def read_older(path: Path) -> Older:
    """The older corpus, checked to be a public corpus (UnusableInput, one line, if not)."""
    with connect() as con:
        try:
            header = load_public(con, path)
        except UnusableInput as exc:
            raise UnusableInput(f"{OPTION}: {exc}") from None
        if header.get("schema") != CORPUS_SCHEMA:
            raise UnusableInput(f"{OPTION}: {path}: not a public corpus: its schema is {header.get('schema')!r}, "
                                f"not {CORPUS_SCHEMA!r}")  # fmt: skip
    return Older(path, file_sha256(path))


def left_out_given(report: dict[str, Any]) -> tuple[int, ...]:
    """The numbers a report's keep_splits member says were left out (none when it has no
    such member: the comparison then names it missing)."""
    kept = report.get("keep_splits")
    numbers = kept.get("left_out_numbers") if isinstance(kept, dict) else []
    if not isinstance(numbers, list) or not all(type(n) is int and n > 0 for n in numbers):
        raise UnusableInput("report.keep_splits.left_out_numbers: expected an array of positive issue numbers")
    return tuple(numbers)


def kept_freeze_steps(con: duckdb.DuckDBPyConnection, older: Older) -> None:
    """What freeze's FREEZE_STEPS do, keeping the older corpus's splits: its splits read,
    then the steps; a new record that would join older splits is left out, and the steps
    run again on the rest. Then the report's member (kept_splits_report)."""
    con.execute("SET VARIABLE older_path = ?", [str(older.path)])
    con.execute("SET VARIABLE max_object_size = ?", [older.path.stat().st_size + 1024])
    con.execute("SET VARIABLE older_sha256 = ?", [older.sha256])
    run_steps(con, ["macros", *OLDER_SPLITS_STEPS])
    wrong = rows(con, f"SELECT number, split FROM older_splits WHERE split NOT IN {SPLIT_NAMES} OR split IS NULL "
                      "OR number IS NULL LIMIT 1")  # fmt: skip
    if wrong:
        raise UnusableInput(f"{OPTION}: {older.path}: record {wrong[0]['number']} has split {wrong[0]['split']!r}, "
                            f"not one of {', '.join(SPLIT_NAMES)}")  # fmt: skip
    if older.left_out is not None:
        create_table(con, "left_out", {"number": "BIGINT"}, [(n,) for n in older.left_out])
    cut = KEPT_FREEZE_STEPS.index("facts/kept/splits") + 1
    run_steps(con, KEPT_FREEZE_STEPS[:cut])
    if con.execute("SELECT count(*) FROM left_out").fetchone()[0]:
        run_steps(con, LEFT_OUT_STEPS)
        run_steps(con, KEPT_FREEZE_STEPS[1:cut])  # left_out is kept (made once)
    run_steps(con, [*KEPT_FREEZE_STEPS[cut:], *KEPT_REPORT_STEPS])
    assert len(KEPT_FREEZE_STEPS) == len(FREEZE_STEPS) + 3


def report_member(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The report's keep_splits member."""
    return rows(con, "SELECT * FROM kept_splits_report")[0]
