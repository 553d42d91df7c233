"""The real `s8f-duck` command line with one fault put in, for tests (never imported by
the package): `python tests/patched_cli.py FAULT ARG... -- COMMAND ARGS...`.

Faults:
- `fail-rename K`: the K-th rename of an output into place fails (EIO);
- `fail-renames-from K`: the K-th rename and every later one fail (undoing fails too);
- `stop-rename K MARKER`: before the K-th rename, write MARKER and wait to be killed;
- `pause-rename K MARKER RELEASE`: before the K-th rename, write MARKER, wait until the
  file RELEASE exists, go on;
- `stop-bind MARKER`: once the public corpus and the answer bundle are written (before
  the bundle is bound to the corpus), write MARKER and wait to be killed;
- `stop-public MARKER`: before the public corpus is written (the work database still
  open), write MARKER and wait to be killed;
- `stop-in-duckdb MARKER`: there instead, write MARKER and run a DuckDB query that does
  not end (the main thread inside DuckDB, not in Python);
- `bug`: reading the raw dump raises a TypeError, as a bug in s8f-duck would;
- `none`: no fault.

With S8F_TEST_WORK_FILE=1 in the environment, a freeze works in a temporary database
file whatever the input's size (as a large input does).
"""

from __future__ import annotations

import errno
import sys
import time
from pathlib import Path
from typing import Any


def _stop(marker: str) -> None:
    Path(marker).write_text("stopped\n")
    while True:
        time.sleep(60)


def main() -> None:
    split = sys.argv.index("--")
    fault, args, sys.argv = sys.argv[1:split], sys.argv[split + 1 :], ["s8f-duck", *sys.argv[split + 1 :]]
    del args
    import os

    from s8f_duck.corpus import artifacts
    from s8f_duck.pipeline import steps
    from s8f_duck.safety import commit

    if os.environ.get("S8F_TEST_WORK_FILE"):
        steps.SMALL_INPUT_BYTES, steps.FILE_SHARE = 0, 2**40

    calls = 0
    rename = commit._rename

    if fault[0] in ("fail-rename", "fail-renames-from", "stop-rename", "pause-rename"):
        target = int(fault[1])

        def faulty(source: Any, destination: Any) -> None:
            nonlocal calls
            calls += 1
            if fault[0] == "fail-renames-from" and calls >= target:
                raise OSError(errno.EIO, "Input/output error (injected)", str(destination))
            if calls == target:
                if fault[0] == "fail-rename":
                    raise OSError(errno.EIO, "Input/output error (injected)", str(destination))
                if fault[0] == "pause-rename":
                    Path(fault[2]).write_text("paused\n")
                    while not Path(fault[3]).exists():
                        time.sleep(0.05)
                else:
                    _stop(fault[2])
            rename(source, destination)

        commit._rename = faulty
    elif fault[0] == "stop-public":
        def stopping_public(*args: Any, **kwargs: Any) -> Any:
            _stop(fault[1])

        artifacts.write_public = stopping_public
    elif fault[0] == "bug":
        from s8f_duck.reading import input_forms

        def broken(*_: Any) -> None:
            raise TypeError("an injected bug")

        input_forms.load = broken  # type: ignore[assignment]
    elif fault[0] in ("stop-bind", "stop-in-duckdb"):
        bind = artifacts.bind_answers

        def stopping(path: Path, corpus_sha256: str) -> str:
            if fault[0] == "stop-in-duckdb":
                import duckdb

                Path(fault[1]).write_text("stopped\n")
                duckdb.connect().execute("SELECT count(*) FROM range(1000000000000000) t(x) WHERE x % 7 = 3").fetchall()
            _stop(fault[1])
            return bind(path, corpus_sha256)

        artifacts.bind_answers = stopping
    from s8f_duck.cli.main import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
