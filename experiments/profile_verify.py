"""Where `s8f-duck verify` spends its time: when each SQL step and each part around them
ran, thread by thread, in-process.

    .venv/bin/python experiments/profile_verify.py PUBLIC ANSWERS REPORT [--over 0.03] [--cprofile OUT.prof]

Runs verify as the command does and prints the import time, the whole run's wall and CPU
seconds (every thread, DuckDB's included: on a shared machine the CPU seconds are the
figure to compare), then every step (sql/*.sql, run by steps.run_steps) and part
(reading the public corpus, writing it, the answer bundle, the blind-oracle grade, the
scans) that took longer than --over seconds: its start, its wall seconds and its thread.
Two steps run side by side where steps.RUN_BESIDE says so, and the public corpus is
written while the bundle and its grade are made. With --cprofile, also writes a cProfile
of the Python side (DuckDB's threads are not in it).
"""

from __future__ import annotations

import argparse
import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

EVENTS: list[tuple[float, float, str, str]] = []  # (start, seconds, thread, what)
START = time.perf_counter()


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed(what: str, call: Callable[[], Any]) -> Any:
    began = time.perf_counter()
    try:
        return call()
    finally:
        EVENTS.append((began - START, time.perf_counter() - began, threading.current_thread().name, what))


def instrument() -> None:
    """Time every step that run_steps runs (a RUN_BESIDE group as one entry besides its
    steps) and the parts of verify around the SQL."""
    from s8f_duck.corpus import artifacts, freeze, verify
    from s8f_duck.grading import grade
    from s8f_duck.pipeline import steps
    from s8f_duck.reading import load

    run_steps = steps.run_steps

    def timed_steps(con: Any, names: Sequence[str]) -> None:
        names = list(names)
        at = 0
        while at < len(names):
            step, at = names[at], at + 1
            beside = steps.RUN_BESIDE.get(step, ())
            if beside and tuple(names[at : at + len(beside)]) == beside:
                group = [step, *beside]
                _timed(" ‖ ".join(group), lambda: run_steps(con, group))
                at += len(beside)
            else:
                _timed(step, lambda: run_steps(con, [step]))

    for module in (steps, load, freeze, grade, verify):
        if hasattr(module, "run_steps"):
            module.run_steps = timed_steps  # type: ignore[attr-defined]
    for module, name in [(verify, "load_public"), (verify, "file_sha256"), (artifacts, "write_public"),
                         (artifacts, "write_answers"), (freeze, "_beside_public"), (grade, "grade_database"),
                         (artifacts, "file_contains"), (artifacts, "bind_answers")]:  # fmt: skip
        real = getattr(module, name)
        setattr(module, name, lambda *a, _real=real, _name=name, **k: _timed(_name, lambda: _real(*a, **k)))


def main() -> None:
    global START
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("public", type=Path)
    parser.add_argument("answers", type=Path)
    parser.add_argument("report", type=Path)
    parser.add_argument("--over", type=float, default=0.03, help="show parts longer than this (seconds)")
    parser.add_argument("--cprofile", type=Path)
    args = parser.parse_args()
    wall0, cpu0 = time.perf_counter(), cpu()
    from s8f_duck.corpus import verify

    imported = (time.perf_counter() - wall0, cpu() - cpu0)
    instrument()
    profiler = None
    if args.cprofile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    START, wall1, cpu1 = time.perf_counter(), time.perf_counter(), cpu()
    result = verify.verify(args.public, args.answers, args.report)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.cprofile)
    print(f"import s8f_duck.corpus.verify {imported[0]:.2f} s wall, {imported[1]:.2f} s CPU")
    print(f"verify {time.perf_counter() - wall1:.2f} s wall, {cpu() - cpu1:.2f} s CPU (all threads): "
          f"{'verified' if not result.problems else result.problems[:3]}")  # fmt: skip
    for began, took, thread, what in sorted(EVENTS):
        if took >= args.over:
            print(f"{began:6.2f} +{took:5.2f}  {thread[:12]:<12} {what}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
