"""When each part of one grade runs, thread by thread: every DuckDB statement that takes
longer than a threshold and each typed JSON check (s8f_duck/reading/typed_check.py), with its
start (seconds since the grade began) and its duration. Shows what waits for what: two
loads and two checks share two cores and Python's lock.

    .venv/bin/python experiments/grade_timeline.py ANSWERS SUBMISSION [--over 0.01]

Run it with PYTHONPATH pointing at another checkout to see that one's timeline.
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.grading import grade
from s8f_duck.pipeline import steps
from s8f_duck.reading import typed_check

EVENTS: list[tuple[float, float, str, str]] = []  # (start, seconds, thread, what)
START = time.perf_counter()
OVER = 0.01


class Timed:
    """A DuckDB connection (or cursor) whose statements are timed."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def execute(self, query: str, *args: Any) -> Any:
        began = time.perf_counter()
        result = self._con.execute(query, *args)
        took = time.perf_counter() - began
        if took > OVER:
            last = query.strip().splitlines()[-1] if query.strip() else query
            EVENTS.append((began - START, took, threading.current_thread().name, last[:70]))
        return Timed(result) if isinstance(result, duckdb.DuckDBPyConnection) else result

    def cursor(self) -> Timed:
        return Timed(self._con.cursor())

    def __enter__(self) -> Timed:
        return self

    def __exit__(self, *_: object) -> None:
        self._con.close()


def main() -> None:
    global START, OVER
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("answers", type=Path)
    parser.add_argument("submission", type=Path)
    parser.add_argument("--over", type=float, default=0.01, help="show statements longer than this (seconds)")
    args = parser.parse_args()
    OVER = args.over
    connect = steps.connect
    grade.connect = lambda *a, **k: Timed(connect(*a, **k))  # type: ignore[assignment, return-value]
    check = typed_check.TypedCheck._check

    def timed_check(self: typed_check.TypedCheck) -> bool:
        began = time.perf_counter()
        try:
            return check(self)
        finally:
            EVENTS.append((began - START, time.perf_counter() - began, "typed check", self.path.name))

    typed_check.TypedCheck._check = timed_check  # type: ignore[method-assign]
    START, cpu = time.perf_counter(), time.process_time()
    grade.grade(args.answers, args.submission)
    print(f"whole grade {time.perf_counter() - START:.2f} s wall, {time.process_time() - cpu:.2f} s CPU (all threads)")
    for began, took, thread, what in sorted(EVENTS):
        print(f"{began:6.2f} +{took:5.2f}  {thread[:12]:<12} {what}")


if __name__ == "__main__":
    main()
