"""The real `s8f-duck` command line with one fault put in, for tests (never imported by
the package): `python tests/patched_cli.py FAULT ARG... -- COMMAND ARGS...`.

Faults:
- `fail-rename K`: the K-th rename of an output into place fails (EIO);
- `stop-rename K MARKER`: before the K-th rename, write MARKER and wait to be killed;
- `stop-bind MARKER`: once the public corpus and the answer bundle are written (before
  the bundle is bound to the corpus), write MARKER and wait to be killed;
- `none`: no fault.
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
    from s8f_duck import artifacts, commit

    calls = 0
    rename = commit._rename

    if fault[0] in ("fail-rename", "stop-rename"):
        target = int(fault[1])

        def faulty(source: Any, destination: Any) -> None:
            nonlocal calls
            calls += 1
            if calls == target:
                if fault[0] == "fail-rename":
                    raise OSError(errno.EIO, "Input/output error (injected)", str(destination))
                _stop(fault[2])
            rename(source, destination)

        commit._rename = faulty
    elif fault[0] == "stop-bind":
        bind = artifacts.bind_answers

        def stopping(path: Path, corpus_sha256: str) -> str:
            _stop(fault[1])
            return bind(path, corpus_sha256)

        artifacts.bind_answers = stopping
    from s8f_duck.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
