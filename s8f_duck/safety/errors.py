"""The two ways a command fails, mapped to exit codes by the CLI (docs/format.md §10)."""

from __future__ import annotations


class UnusableInput(Exception):
    """Exit 2: an input that cannot be used (undecodable, wrong types, missing file).

    The message names the file and the record or field."""


class Verdict(Exception):
    """Exit 1: the input was read but fails a check (verification, quality floor)."""


def not_a_file(path: object) -> UnusableInput:
    """Why a path that should name a file to read does not: missing, a directory, or another
    kind of file (a FIFO, a device), each said as it is."""
    import os
    import stat

    try:
        mode = os.stat(str(path)).st_mode
    except FileNotFoundError:
        return UnusableInput(f"{path}: cannot read: no such file")
    except OSError as exc:
        return UnusableInput(f"{path}: cannot read: {exc.strerror or exc}")
    if stat.S_ISDIR(mode):
        return UnusableInput(f"{path}: cannot read: a directory, not a file")
    return UnusableInput(f"{path}: cannot read: not a regular file")


def json_given_for_database(path: object, use: str) -> UnusableInput | None:
    """A JSON file given where a DuckDB database is expected (DuckDB itself says only that it
    cannot launch an in-memory database): the error that says so and what to use, else None."""
    try:
        with open(str(path), "rb") as f:
            head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return None
    if head[:1] in (b"{", b"["):
        return UnusableInput(f"{path}: this is a JSON file, not a DuckDB database: {use}")
    return None
