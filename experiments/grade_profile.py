"""Where the time of one `s8f-duck grade` goes: interpreter and imports, JSON reading, the
diff queries (sql/grade/*.sql), writing the grade. CPU (user+sys, all threads) and wall.

    .venv/bin/python experiments/grade_profile.py ANSWERS SUBMISSION [--runs 5]

Phases, each the median of --runs:
- interpreter+imports: a fresh `python -c "import s8f_duck.cli.main, s8f_duck.grading.grade"`, as the
  command pays it (user+sys of the child);
- JSON reading: both documents into DuckDB tables, strict JSON checks included (for the
  in-process Grader: the answer bundle once, then the submission per grade);
- diff queries: the steps of steps.GRADE_STEPS;
- writing the grade: the report read from the tables, encoded (gojson.dumps) and written.
Then the whole command as a fresh process (wall, user+sys) and, when s8f_duck.grading.grade has a
Grader, the per-grade time inside a long-running process (what `s8f-duck serve` pays).
Run it with PYTHONPATH pointing at another checkout to profile that one.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CLI = Path(sys.executable).parent / "s8f-duck"


def child_cpu(command: list[str]) -> tuple[float, float]:
    """(wall, user+sys) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def clocked(action: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU of this process, all threads) of an action."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def median_pair(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def phases(answers: Path, submission: Path) -> dict[str, tuple[float, float]]:
    """One grade, phase by phase, on a fresh connection."""
    from s8f_duck.grading import grade
    from s8f_duck.pipeline import steps
    from s8f_duck.reading.gojson import dumps

    out: dict[str, tuple[float, float]] = {}
    if hasattr(grade, "Grader"):  # the answers read once, then the submission
        holder: dict[str, object] = {}
        out["JSON reading: answers"] = clocked(lambda: holder.update(g=grade.Grader(answers)))
        g = holder["g"]
        with g.session() as session:  # type: ignore[attr-defined]
            out["JSON reading: submission"] = clocked(lambda: session.load(submission))
            out["diff queries"] = clocked(session.compare)
            report: dict[str, object] = {}
            out["writing the grade"] = clocked(lambda: report.update(r=session.report()))
        g.close()  # type: ignore[attr-defined]
    else:
        con = steps.connect()
        loaded: dict[str, object] = {}

        def read() -> None:  # as grade_database does, without its last step
            original = grade.run_steps

            def skip_grade_steps(c: object, s: object, *a: object) -> None:
                if s is not steps.GRADE_STEPS:
                    original(c, s, *a)  # type: ignore[arg-type]

            grade.run_steps = skip_grade_steps  # type: ignore[assignment]
            try:
                loaded["con"] = grade.grade_database(answers, submission, con)
            finally:
                grade.run_steps = original

        out["JSON reading: answers + submission"] = clocked(read)
        out["diff queries"] = clocked(lambda: steps.run_steps(con, steps.GRADE_STEPS))
        report = {}
        out["writing the grade"] = clocked(lambda: report.update(r=grade.full_report(con)))
        con.close()
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "grade.json"
        wall, cpu = clocked(lambda: target.write_bytes(dumps(report["r"]).encode()))
        w0, c0 = out["writing the grade"]
        out["writing the grade"] = (w0 + wall, c0 + cpu)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("answers", type=Path)
    parser.add_argument("submission", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--in-process", type=int, default=30, help="grades for the in-process median")
    args = parser.parse_args()
    env_python = [sys.executable, "-c", "import s8f_duck.cli.main, s8f_duck.grading.grade"]
    bare = median_pair([child_cpu([sys.executable, "-c", "pass"]) for _ in range(args.runs)])
    imports = median_pair([child_cpu(env_python) for _ in range(args.runs)])
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.runs}; wall / CPU (user+sys) in ms")
    print(f"{'interpreter alone':<40}{bare[0] * 1000:8.1f}{bare[1] * 1000:8.1f}")
    print(f"{'interpreter+imports':<40}{imports[0] * 1000:8.1f}{imports[1] * 1000:8.1f}")
    runs = [phases(args.answers, args.submission) for _ in range(args.runs)]
    for name in runs[0]:
        wall, cpu = median_pair([r[name] for r in runs])
        print(f"{name:<40}{wall * 1000:8.1f}{cpu * 1000:8.1f}")
    with tempfile.TemporaryDirectory() as scratch:
        command = [str(CLI), "grade", "--answers", str(args.answers), "--submission", str(args.submission),
                   "--output", str(Path(scratch) / "grade.json")]  # fmt: skip
        if os.environ.get("PYTHONPATH"):
            command = [sys.executable, "-c", "from s8f_duck.cli.main import main; main()", *command[1:]]
        whole = median_pair([child_cpu(command) for _ in range(args.runs)])
    print(f"{'whole command (fresh process)':<40}{whole[0] * 1000:8.1f}{whole[1] * 1000:8.1f}")
    from s8f_duck.grading import grade

    if hasattr(grade, "Grader"):
        g = grade.Grader(args.answers)
        samples = [clocked(lambda: g.grade(args.submission)) for _ in range(args.in_process)]
        g.close()
        wall, cpu = median_pair(samples)
        print(f"{'per grade in a long-running process':<40}{wall * 1000:8.1f}{cpu * 1000:8.1f}")


if __name__ == "__main__":
    main()
