"""`s8f-duck sql` without a query: the `duckdb` shell when one on PATH can read the
database, otherwise a prompt of its own.

The prompt reads statements ending with ';' and prints each result as `sql` does. On a
terminal it has line editing and a history (readline, kept in ~/.s8f_duck_history),
shows its prompts on the terminal, and Ctrl-C cancels the line being typed or the query
running; from a pipe it prints results only. Lines starting with '.' (before a
statement) are commands: .tables, .schema, .mode, .help, .quit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb

from s8f_duck.corpus.explore import Format, run_sql
from s8f_duck.safety import interrupts, scratch
from s8f_duck.safety.errors import UnusableInput

# What the `duckdb` shell must print for this query to be trusted with the database: an
# older shell cannot read a newer storage version ("version number 69") and fails.
PROBE_QUERY = "SELECT 's8f-duck probe ' || 6 * 7 AS probe"
PROBE_ANSWER = "s8f-duck probe 42"

HISTORY = Path("~/.s8f_duck_history")
FORMATS: tuple[Format, ...] = ("table", "csv", "json")
HELP = """\
.tables              the tables
.schema [TABLE]      the CREATE statement of every table (or of one)
.mode table|csv|json how results are printed
.help                this text
.quit                leave (as Ctrl-D does)
End each SQL statement with ';'. Ctrl-C cancels the line being typed, or the query running."""


def duckdb_shell(db_path: Path) -> tuple[str | None, str]:
    """The `duckdb` shell on PATH when it can read the database (else None), and why not."""
    cli = shutil.which("duckdb")
    if cli is None:
        return None, "no `duckdb` shell on PATH"
    try:
        probe = subprocess.run(
            [cli, "-readonly", "-safe", str(db_path), PROBE_QUERY],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"the `duckdb` shell at {cli} did not start: {exc}"
    if probe.returncode == 0 and PROBE_ANSWER in probe.stdout:
        return cli, ""
    reason = next((line.strip() for line in (probe.stderr + probe.stdout).splitlines() if line.strip()), "no answer")
    return None, f"the `duckdb` shell at {cli} cannot read {db_path} ({reason})"


def exec_duckdb(cli: str, db_path: Path) -> None:
    """Become the `duckdb` shell, read-only and in safe mode (no file but the database, no
    dot command that touches files). Exec runs no exit handler: this run's work directory
    is removed first, and the signals the command blocked are unblocked for the shell."""
    sys.stdout.flush()
    sys.stderr.flush()
    scratch.remove_owned()
    interrupts.restore()
    os.execv(cli, [cli, "-readonly", "-safe", str(db_path)])


def run_prompt(con: duckdb.DuckDBPyConnection, fmt: Format, note: str = "") -> None:
    """Read statements and commands until the end of the input (or .quit)."""
    reader = _Reader()
    if reader.interactive:
        version = duckdb.__version__
        where = f"{note}; " if note else ""
        print(f"s8f-duck sql: {where}DuckDB {version} SQL; end each statement with ';', .help for commands, "
              "Ctrl-D to leave", file=sys.stderr)  # fmt: skip
    pending = ""
    try:
        while True:
            try:
                line = reader.read("s8f> " if not pending.strip() else "...> ")
                pending, fmt = _take(con, line, pending, fmt, reader.interactive)
            except KeyboardInterrupt:  # Ctrl-C: the line (and any statement begun) is dropped
                interrupts.ctrl_c_taken()
                reader.newline()
                pending = ""
            except EOFError:
                break
            except _Quit:
                return
        if pending.strip():  # a last statement without its ';'
            _run(con, pending, fmt, reader.interactive)
    finally:
        reader.close()
        if reader.interactive:
            print(file=sys.stderr)


class _Quit(Exception):
    """.quit"""


def _take(con: duckdb.DuckDBPyConnection, line: str, pending: str, fmt: Format, interactive: bool) -> tuple[str, Format]:
    """One line read: a dot command (before a statement), or part of a statement, run when
    it ends with ';'. Returns the statement begun and the format from now on."""
    if not pending.strip() and line.lstrip().startswith("."):
        command = _command(con, line.strip(), fmt)
        if command is None:
            raise _Quit
        return "", command
    pending += line + "\n"
    if pending.rstrip().endswith(";"):
        _run(con, pending, fmt, interactive)
        return "", fmt
    return pending, fmt


def _run(con: duckdb.DuckDBPyConnection, text: str, fmt: Format, interactive: bool = False) -> None:
    try:
        if interactive:
            with interrupts.cancellable(con):
                run_sql(con, text, fmt)
        else:
            run_sql(con, text, fmt)
    except UnusableInput as exc:
        print(f"error: {exc}", file=sys.stderr)


def _command(con: duckdb.DuckDBPyConnection, line: str, fmt: Format) -> Format | None:
    """Carry out a dot command; the format from now on, or None to leave."""
    name, _, argument = line.partition(" ")
    argument = argument.strip()
    if name in (".quit", ".exit", ".q"):
        return None
    if name == ".help":
        print(HELP)
    elif name == ".tables":  # every name, however many (a table result would elide some)
        names = [name for (name,) in con.execute("SHOW TABLES").fetchall()]
        print(textwrap.fill("  ".join(names), width=shutil.get_terminal_size().columns, break_on_hyphens=False))
    elif name == ".schema":
        where = "WHERE table_name = $name" if argument else ""
        query = f"SELECT sql FROM duckdb_tables() {where} ORDER BY database_name, schema_name, table_name"
        rows = con.execute(query, {"name": argument} if argument else None).fetchall()
        if argument and not rows:
            print(f"error: no table {argument!r} (.tables lists them)", file=sys.stderr)
        for (sql,) in rows:
            print(sql)
    elif name == ".mode" and argument in FORMATS:
        return argument  # type: ignore[return-value]
    elif name == ".mode":
        print(f"error: .mode takes one of {', '.join(FORMATS)}", file=sys.stderr)
    else:
        print(f"error: unknown command {name} (.help lists them)", file=sys.stderr)
    return fmt


class _Reader:
    """Lines from stdin: with prompts, readline and its history on a terminal; as they come
    from a pipe otherwise."""

    def __init__(self) -> None:
        self.interactive = sys.stdin.isatty()
        self._history: Path | None = None
        if not self.interactive:
            return
        import readline  # input() then edits lines and keeps the session's history

        self._history = HISTORY.expanduser()
        try:
            readline.read_history_file(self._history)
        except OSError:
            pass  # none yet, or unreadable: the session's own history still works
        readline.set_history_length(1000)
        interrupts.take_ctrl_c()

    def read(self, prompt: str) -> str:
        if not self.interactive:
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")
        if sys.stdout.isatty():
            return input(prompt)
        sys.stderr.write(prompt)  # results go to a file or pipe: the prompt stays on the terminal
        sys.stderr.flush()
        return input()

    def newline(self) -> None:
        (sys.stdout if sys.stdout.isatty() else sys.stderr).write("\n")

    def close(self) -> None:
        if self._history is None:
            return
        import readline

        try:
            readline.write_history_file(self._history)
        except OSError:
            pass  # a read-only home: the history is not kept
