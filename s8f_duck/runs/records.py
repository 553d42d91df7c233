"""`s8f-duck runs --delete`: mistaken runs removed from every table of the runs database,
and their run directories beside it (docs/runs.md)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from s8f_duck.pipeline.steps import connect
from s8f_duck.safety.errors import UnusableInput, json_given_for_database
from s8f_duck.safety.locks import wait_for_lock
from s8f_duck.safety.paths import no_runs_database, run_root
from s8f_duck.safety.printable import printable
from s8f_duck.safety.trees import remove_tree

_LOCK_WAIT_SECONDS = 60
_RUN_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.-]*")  # what runner.py makes: a plain file name


@dataclass
class Removed:
    run_id: str
    name: str
    rows: dict[str, int]  # table -> rows removed
    run_dir: Path
    dir_removed: bool | None  # None: there was no run directory


def _open(runs_db: Path) -> duckdb.DuckDBPyConnection:
    """The runs database read-write, waiting a while for a runner that is writing it."""
    if not runs_db.is_file():
        raise UnusableInput(no_runs_database(runs_db))
    refused = json_given_for_database(runs_db, "--runs takes the runs database that `s8f-duck run` writes")
    if refused is not None:
        raise refused
    return wait_for_lock(runs_db, lambda: connect(str(runs_db)), _LOCK_WAIT_SECONDS)


def delete_runs(runs_db: Path, run_ids: list[str]) -> list[Removed]:
    """Remove the runs from every table that has a run_id column, in one transaction, then
    their run directories. An id that names no run is refused before anything is removed."""
    wanted = list(dict.fromkeys(run_ids))
    for run_id in wanted:
        if not _RUN_ID.fullmatch(run_id):
            raise UnusableInput(f"--delete {run_id!r}: not a run id (see `s8f-duck runs`)")
    con = _open(runs_db)
    try:
        tables = [
            name
            for (name,) in con.execute(
                "SELECT DISTINCT table_name FROM duckdb_columns() WHERE database_name = current_database() "
                "AND schema_name = 'main' AND column_name = 'run_id' ORDER BY table_name = 'runs' DESC, table_name"
            ).fetchall()
        ]
        if "runs" not in tables:
            raise UnusableInput(f"{runs_db}: no run is recorded in this database")
        names = dict(con.execute("SELECT run_id, name FROM runs WHERE list_contains($1, run_id)", [wanted]).fetchall())
        for run_id in wanted:
            if run_id not in names:
                raise UnusableInput(f"--delete {run_id}: no run with that id in {runs_db}; nothing removed")
        removed = {run_id: Removed(run_id, names[run_id], {}, run_root(runs_db) / run_id, None) for run_id in wanted}
        con.execute("BEGIN")
        try:
            for table in tables:
                counts = con.execute(
                    f'SELECT run_id, count(*) FROM "{table}" WHERE list_contains($1, run_id) GROUP BY run_id', [wanted]
                ).fetchall()
                con.execute(f'DELETE FROM "{table}" WHERE list_contains($1, run_id)', [wanted])
                for run_id, count in counts:
                    removed[run_id].rows[table] = count
            con.execute("COMMIT")
        except duckdb.Error as exc:
            con.execute("ROLLBACK")
            raise UnusableInput(f"{runs_db}: cannot remove the runs: {exc}") from None
        con.execute("CHECKPOINT")  # the rows leave the file now, not at some later write
    finally:
        con.close()
    for entry in removed.values():
        if os.path.lexists(entry.run_dir):
            entry.dir_removed = remove_tree(entry.run_dir)
    return list(removed.values())


def summary(entries: list[Removed]) -> str:
    """One line per removed run: its rows per table and its directory."""
    lines = []
    for e in entries:
        rows = ", ".join(f"{n} {table}" for table, n in e.rows.items())
        where = {None: f"no run directory at {e.run_dir}", True: f"removed {e.run_dir}",
                 False: f"could not remove {e.run_dir}"}[e.dir_removed]  # fmt: skip
        lines.append(f"removed run {e.run_id} ({printable(e.name)}): rows {rows}; {where}")
    return "\n".join(lines)
