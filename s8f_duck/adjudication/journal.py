"""A model adjudication's journal (`LABELS.json.journal`, 0600): its first line binds the
packet, model, endpoint and prompt; then one JSON line per finished record, appended and
fsync'ed as each answer arrives, so a run killed at any point resumes without asking
again for what it already has. Removed once the labels file is written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from s8f_duck.safety.errors import UnusableInput

JOURNAL_SCHEMA = "s8f-duck-adjudication-journal/1"


class Journal:
    def __init__(self, path: Path, results: dict[str, dict[str, Any]]) -> None:
        self.path = path
        self.results = results  # record id -> {id, labels | invalid, requests}
        self._file = open(path, "ab")

    @classmethod
    def open(cls, path: Path, binding: dict[str, str], ids: set[str]) -> Journal:
        """The journal at path, checked against this run's binding, or a new one."""
        header = {"schema": JOURNAL_SCHEMA, **binding}
        results = _read(path, header, ids) if path.exists() else {}
        if not results:  # nothing paid for yet: (re)started with this run's binding
            path.unlink(missing_ok=True)
            _create(path, header)
        return cls(path, results)

    def remove_if_empty(self) -> None:
        """A journal of no record keeps nothing worth resuming."""
        if not self.results:
            self.path.unlink(missing_ok=True)

    def stopped(self) -> str:
        """For a stopped run (Ctrl-C, a kill signal): a journal of no record is removed; what
        is kept, and that the same command goes on from it."""
        self.remove_if_empty()
        done = len(self.results)
        if not done:
            return "no record was done"
        return f"the {done} records done are kept in {self.path}: the same command again asks only for the rest"

    def add(self, result: dict[str, Any]) -> None:
        """One finished record, on disk before the next is taken."""
        self._file.write(json.dumps(result, ensure_ascii=False).encode("utf-8") + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.results[result["id"]] = result

    def close(self) -> None:
        self._file.close()


def _create(path: Path, header: dict[str, str]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # private: the answers paid for
    with os.fdopen(fd, "wb") as f:
        f.write(json.dumps(header).encode("utf-8") + b"\n")
        f.flush()
        os.fsync(f.fileno())
    directory = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(directory)  # the new name too
    finally:
        os.close(directory)


def _read(path: Path, header: dict[str, str], ids: set[str]) -> dict[str, dict[str, Any]]:
    data = path.read_bytes()
    if not data:
        return {}  # killed as it was made
    complete = data[: data.rfind(b"\n") + 1]  # a line cut short by a kill is dropped, and cut off below
    lines = complete.splitlines()
    try:
        given = json.loads(lines[0]) if lines else None
    except ValueError:
        given = None
    if not isinstance(given, dict) or given.get("schema") != JOURNAL_SCHEMA:
        raise UnusableInput(f"{path}: not a journal of `adjudicate model`: remove it, or give another --output")
    finished = lines[1:]
    for key, value in header.items():
        if given.get(key) != value and finished:
            raise UnusableInput(f"{path}: a journal of another run ({key} {given.get(key)!r}, this run's {value!r}): "
                                "remove it to start again, or give another --output")  # fmt: skip
    results: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(finished, start=2):
        try:
            result = json.loads(line)
        except ValueError:
            result = None
        if not isinstance(result, dict) or result.get("id") not in ids or not isinstance(result.get("requests"), list):
            raise UnusableInput(f"{path}: line {number} is not a finished record of the packet: remove the journal "
                                "to start again")  # fmt: skip
        results[result["id"]] = result
    if len(complete) < len(data):
        os.truncate(path, len(complete))
    return results
