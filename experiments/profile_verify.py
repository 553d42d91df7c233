"""Where `s8f-duck verify` spends its time: each step's wall and CPU seconds, in-process.

    .venv/bin/python experiments/profile_verify.py PUBLIC ANSWERS REPORT [--cprofile OUT.prof]

Runs verify as the command does, with its progress steps timed in wall seconds and in
the process's CPU seconds (every thread, DuckDB's included): on a shared machine the CPU
seconds are the figure to compare. The import of the package is timed first. With
--cprofile, also writes a cProfile of the Python side (DuckDB's threads are not in it).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("public", type=Path)
    parser.add_argument("answers", type=Path)
    parser.add_argument("report", type=Path)
    parser.add_argument("--cprofile", type=Path)
    args = parser.parse_args()
    wall0, cpu0 = time.perf_counter(), cpu()
    from s8f_duck import verify
    from s8f_duck.progress import Progress

    steps: list[tuple[str, float, float]] = [("import s8f_duck.verify", time.perf_counter() - wall0, cpu() - cpu0)]

    class Timed(Progress):
        def step(self, name: str) -> None:
            self._finish_current()
            self._current, self._step_started, self._cpu_started = name, time.perf_counter(), cpu()

        def _finish_current(self) -> None:
            if self._current is not None:
                steps.append((self._current, time.perf_counter() - self._step_started, cpu() - self._cpu_started))
            self._current = None

    progress = Timed("verify")  # (mode off: nothing on stderr)
    progress.step("start")
    profiler = None
    if args.cprofile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    result = verify.verify(args.public, args.answers, args.report, progress=progress)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.cprofile)
    for name, wall, used in steps:
        print(f"{wall:7.2f} s wall {used:7.2f} s CPU  {name}")
    print(f"{time.perf_counter() - wall0:7.2f} s wall {cpu() - cpu0:7.2f} s CPU  total "
          f"({'verified' if not result.problems else result.problems[:3]})")  # fmt: skip
    sys.stdout.flush()


if __name__ == "__main__":
    main()
