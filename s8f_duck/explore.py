"""The corpus as a database: `s8f-duck explore` builds one from a public corpus, and
`s8f-duck sql` queries one (or a public corpus loaded on the fly)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb

from . import artifacts, interrupts, paths, scratch
from .errors import UnusableInput
from .load import load_public
from .progress import Progress
from .steps import BESIDE_PUBLIC_STEPS, FREEZE_STEPS, connect, run_steps, work_database


def load_corpus(con: duckdb.DuckDBPyConnection, public_path: Path, progress: Progress | None = None) -> None:
    """Every freeze table (issues, labels, edges, components, answers, ...) from a public corpus."""
    load_public(con, public_path)
    run_steps(con, (*FREEZE_STEPS, *BESIDE_PUBLIC_STEPS), progress)


def explore(public_path: Path, db_path: Path, parquet_path: Path | None = None) -> None:
    """Write a database with the freeze tables, built from the public corpus alone."""
    progress = Progress("explore")
    paths.check({"PUBLIC": public_path}, {"--db": db_path, "--parquet": parquet_path})
    outputs = artifacts.Outputs([db_path, parquet_path])
    try:
        temp_db = outputs.temp_for(db_path)
        temp_db.unlink()  # DuckDB creates the file itself
        with work_database(temp_db) as con:
            load_corpus(con, public_path, progress)
            if parquet_path is not None:
                artifacts.write_parquet(con, outputs.temp_for(parquet_path))
        outputs.commit()
    finally:
        outputs.discard()
    progress.done()


def open_corpus(db_path: Path | None, public_path: Path | None) -> duckdb.DuckDBPyConnection:
    """A read-only connection to a database, or an in-memory one loaded from a public
    corpus; either way closed to files (sealed)."""
    if (db_path is None) == (public_path is None):
        raise UnusableInput("give exactly one of --db DATABASE or --public CORPUS")
    paths.check({"--db": db_path, "--public": public_path})
    if public_path is not None:
        con = connect()
        load_corpus(con, public_path)
        return sealed(con)
    assert db_path is not None
    if not db_path.is_file():
        raise UnusableInput(f"{db_path}: no such database file")
    try:
        return sealed(connect(str(db_path), read_only=True))
    except duckdb.Error as exc:
        raise UnusableInput(f"{db_path}: cannot open as a DuckDB database: {exc}") from None


def sealed(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The connection with no access to files from now on: a query can neither read a file
    (read_text, read_csv, ...), nor write one (COPY ... TO, EXPORT), nor attach or load
    anything, and cannot change that (the configuration is locked). Spilling to its
    temporary directory, set before, still works."""
    con.execute("SET enable_external_access = false")
    con.execute("SET python_enable_replacements = false")  # nor read a Python variable as a table
    con.execute("SET lock_configuration = true")
    return con


def run_query(con: duckdb.DuckDBPyConnection, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of a query; a SQL error is unusable input."""
    try:
        cursor = con.execute(query)
    except duckdb.Error as exc:
        raise UnusableInput(f"query failed: {exc}") from None
    if cursor.description is None:
        return [], []
    return [d[0] for d in cursor.description], cursor.fetchall()


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return value.replace("\n", "\\n")
    return str(value)


def render(columns: list[str], rows: list[tuple[Any, ...]], fmt: str) -> str:
    """Rows as an aligned text table, CSV or JSON (an array of objects)."""
    if fmt == "json":
        return json.dumps([dict(zip(columns, row)) for row in rows], ensure_ascii=False, indent=2, default=str)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[("" if v is None else v) for v in row] for row in rows])
        return out.getvalue().rstrip("\n")
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    line = lambda values: " | ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()  # noqa: E731
    body = [line(columns), "-+-".join("-" * w for w in widths), *(line(r) for r in cells)]
    return "\n".join(body + [f"({len(rows)} row{'s' if len(rows) != 1 else ''})"])


def shell(db_path: Path | None, con: duckdb.DuckDBPyConnection, fmt: str) -> None:
    """The `duckdb` shell on the database when it is installed; otherwise a small prompt."""
    cli = shutil.which("duckdb")
    if cli and db_path is not None:  # in safe mode: no file but the database, no dot command that touches files
        con.close()
        interrupts.restore()  # the shell's own Ctrl-C
        scratch.remove_owned()  # exec leaves no exit handler to do it
        os.execv(cli, [cli, "-readonly", "-safe", str(db_path)])
    print("s8f-duck sql: no `duckdb` shell on PATH; end each statement with ';', quit with Ctrl-D.",
          file=sys.stderr)  # fmt: skip
    pending = ""
    while True:
        try:
            pending += input("s8f> " if not pending else "...> ") + "\n"
        except EOFError:
            print(file=sys.stderr)
            return
        if pending.rstrip().endswith(";"):
            try:
                print(render(*run_query(con, pending), fmt))
            except UnusableInput as exc:
                print(f"error: {exc}", file=sys.stderr)
            pending = ""
