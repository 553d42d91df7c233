"""Opening a DuckDB database that another process may hold: DuckDB lets one process write
a file at a time, so a runner recording its run, `runs --set-cutoff`, `runs --delete` and
the leaderboard wait a while for each other instead of failing at once."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

from s8f_duck.safety.errors import UnusableInput

T = TypeVar("T")


def wait_for_lock(path: Path, open_once: Callable[[], T], seconds: float, *,
                  unopened: str = "cannot open the runs database") -> T:  # fmt: skip
    """open_once() again every 0.2 s while another process holds PATH's lock, for at most
    SECONDS; any other failure at once, as one line naming PATH (UNOPENED for an I/O error
    that is not the lock)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return open_once()
        except duckdb.IOException as exc:
            locked = "lock" in str(exc).lower()
            if not locked:
                raise UnusableInput(f"{path}: {unopened}: {exc}") from None
            if time.monotonic() > deadline:
                raise UnusableInput(f"{path}: cannot open the runs database: {exc}") from None
            time.sleep(0.2)
        except duckdb.Error as exc:
            raise UnusableInput(f"{path}: not a usable runs database: {exc}") from None
