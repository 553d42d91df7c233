"""The corpus as a database: `s8f-duck explore` builds one from a public corpus, and
`s8f-duck sql` queries one (or a public corpus loaded on the fly). The interactive
prompt is in prompt.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal, TextIO

import duckdb

from s8f_duck.corpus import artifacts
from s8f_duck.pipeline.steps import BESIDE_PUBLIC_STEPS, FREEZE_STEPS, connect, run_steps, work_database
from s8f_duck.reading.load import load_public
from s8f_duck.safety import arguments
from s8f_duck.safety.errors import UnusableInput, json_given_for_database
from s8f_duck.safety.progress import Progress

Format = Literal["table", "csv", "json"]


def load_corpus(con: duckdb.DuckDBPyConnection, public_path: Path, progress: Progress | None = None) -> None:
    """Every freeze table (issues, labels, edges, components, answers, ...) from a public corpus."""
    progress = progress or Progress("sql")
    progress.step("read the public corpus")
    load_public(con, public_path)
    progress.step("derive the tables")
    run_steps(con, (*FREEZE_STEPS, *BESIDE_PUBLIC_STEPS))


def explore(
    public_path: Path, db_path: Path, parquet_path: Path | None = None, progress: Progress | None = None
) -> None:
    """Write a database with the freeze tables, built from the public corpus alone."""
    progress = progress or Progress("explore")
    arguments.check({"--public": public_path}, {"--db": db_path, "--parquet": parquet_path})
    outputs = artifacts.Outputs([db_path, parquet_path])
    try:
        temp_db = outputs.temp_for(db_path)
        temp_db.unlink()  # DuckDB creates the file itself
        with work_database(temp_db) as con:
            load_corpus(con, public_path, progress)
            if parquet_path is not None:
                progress.step("write the Parquet file")
                artifacts.write_parquet(con, outputs.temp_for(parquet_path))
        outputs.commit()
    finally:
        outputs.discard()


def open_corpus(
    db_path: Path | None, public_path: Path | None, progress: Progress | None = None
) -> duckdb.DuckDBPyConnection:
    """A read-only connection to a database, or an in-memory one loaded from a public
    corpus; either way closed to files (sealed)."""
    check_corpus(db_path, public_path)
    if public_path is not None:
        con = connect()
        load_corpus(con, public_path, progress)
        return sealed(con)
    try:
        return sealed(connect(str(db_path), read_only=True))
    except duckdb.Error as exc:
        raise json_given_for_database(db_path, "give a public corpus as --public") or UnusableInput(
            f"{db_path}: cannot open as a DuckDB database: {exc}"
        ) from None


def check_corpus(db_path: Path | None, public_path: Path | None) -> None:
    """Exactly one of a database file and a public corpus, both usable paths."""
    if (db_path is None) == (public_path is None):
        raise UnusableInput("give exactly one of --db DATABASE or --public CORPUS")
    arguments.check({"--db": db_path, "--public": public_path})
    if db_path is not None and not db_path.is_file():
        raise UnusableInput(f"{db_path}: no such database file")


def sealed(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The connection with no access to files from now on: a query can neither read a file
    (read_text, read_csv, ...), nor write one (COPY ... TO, EXPORT), nor attach or load
    anything, and cannot change that (the configuration is locked). Spilling to its
    temporary directory, set before, still works. Results leave it as Arrow with DuckDB's
    own types (UUID, JSON, HUGEINT, TIME WITH TIME ZONE ...) kept, for `write_result`."""
    con.execute("SET enable_external_access = false")
    con.execute("SET python_enable_replacements = false")  # nor read a Python variable as a table
    con.execute("SET arrow_lossless_conversion = true")
    con.execute("SET lock_configuration = true")
    return con


def run_sql(con: duckdb.DuckDBPyConnection, text: str, fmt: Format, out: TextIO | None = None) -> None:
    """Run each statement of text in turn and print the result of each that has one."""
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as exc:
        raise UnusableInput(f"query failed: {_one_line(exc)}") from None
    for statement in statements:
        try:
            result = con.sql(statement.query)
            if result is not None:
                write_result(con, result, fmt, out or sys.stdout)
        except duckdb.Error as exc:
            raise UnusableInput(f"query failed: {_one_line(exc)}") from None


def _one_line(exc: Exception) -> str:
    """DuckDB's message on one line, as every error is: its lines joined, the line of carets
    under the query (which points at nothing once joined) left out."""
    lines = [line.strip() for line in str(exc).splitlines()]
    return " ".join(line for line in lines if line and set(line) != {"^"})


def write_result(con: duckdb.DuckDBPyConnection, result: duckdb.DuckDBPyRelation, fmt: Format, out: TextIO) -> None:
    """A result as DuckDB renders it: its box table (long results elided, as its shell
    does), or every row as its COPY ... TO writes CSV (with a header) or JSON (an array of
    objects). The sealed connection cannot write a file, so the rows go as Arrow to a
    connection of their own that writes them into a private temporary file (in this run's
    work directory), copied to the output."""
    if fmt == "table":
        out.write(str(result))
        out.flush()
        return
    import tempfile

    options = "FORMAT csv" if fmt == "csv" else "FORMAT json, ARRAY true"
    ((zone,),) = con.execute("SELECT current_setting('TimeZone')").fetchall()
    with tempfile.TemporaryDirectory(prefix="s8f-duck-sql-") as directory, connect() as writer:
        target = Path(directory) / f"result.{fmt}"
        writer.execute("SET TimeZone = ?", [zone])  # a TIMESTAMPTZ is written in the reading connection's zone
        writer.register("result", result.to_arrow_reader())
        writer.execute(f"COPY (FROM result) TO '{str(target).replace(chr(39), chr(39) * 2)}' ({options})")
        out.flush()
        last = b"\n"
        with open(target, "rb") as written:
            while block := written.read(1 << 20):
                out.buffer.write(block)
                last = block[-1:]
        if last != b"\n":  # DuckDB ends a JSON array without one; a text stream's last line has one
            out.buffer.write(b"\n")
        out.buffer.flush()
