"""The command line run as a process that tests can fault, stop, signal and watch, each
with a $TMPDIR of its own (see patched_cli.py for the faults)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import CLI, REPO

PATCHED = Path(__file__).with_name("patched_cli.py")
DEMO = REPO / "experiments" / "demo" / "gh-issues-demo.json"
NAMES = ("public", "answers", "report")


def environment(tmpdir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "TMPDIR": str(tmpdir), **extra}


def _umask(mask: int | None) -> Any:
    return None if mask is None else (lambda: os.umask(mask))


def cli(*args: str | Path, tmpdir: Path, umask: int | None = 0o022, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed command, to its end."""
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=environment(tmpdir, **env),
                          preexec_fn=_umask(umask), check=False, timeout=600)  # fmt: skip


def patched(fault: list[str], *args: str | Path, tmpdir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The command with a fault, to its end."""
    command = [sys.executable, str(PATCHED), *fault, "--", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, env=environment(tmpdir, **env),
                          preexec_fn=_umask(0o022), check=False, timeout=600)  # fmt: skip


def start_patched(fault: list[str], *args: str | Path, tmpdir: Path, **env: str) -> subprocess.Popen[str]:
    """The command with a fault, started: the caller waits for it or kills it."""
    command = [sys.executable, str(PATCHED), *fault, "--", *map(str, args)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment(tmpdir, **env), preexec_fn=_umask(0o022))  # fmt: skip


def wait_for(marker: Path, process: subprocess.Popen[str], timeout: float = 120) -> None:
    """Wait until the process has written marker (it has reached its stop)."""
    deadline = time.monotonic() + timeout
    while not marker.exists():
        if process.poll() is not None:
            raise AssertionError(f"the process ended ({process.returncode}) before its stop: {process.stderr.read()}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("the process never reached its stop")
        time.sleep(0.05)


def outputs(out: Path, *extra: str) -> dict[str, Path]:
    paths = {name: out / f"{name}.json" for name in NAMES}
    for name in extra:
        paths[name] = out / {"db": "corpus.duckdb", "parquet": "public.parquet"}[name]
    return paths


def freeze_args(raw: Path, out: Path, source: str, *extra: str) -> list[str | Path]:
    """`freeze RAW ...` writing into out (public.json, answers.json, report.json, and
    corpus.duckdb, public.parquet when named in extra). With --force: these tests replace
    outputs of another source on purpose (test_made_from.py tests the refusal)."""
    paths = outputs(out, *extra)
    args: list[str | Path] = ["freeze", raw, "--source", source, "-q", "--force"]
    for name, path in paths.items():
        args += [f"--{name}", path]
    return args


def frozen_demo(out: Path) -> Path:
    """The demo dump frozen into out, with its database (corpus.duckdb)."""
    result = cli(*freeze_args(DEMO, out, "demo", "db"), tmpdir=out)
    assert result.returncode == 0, result.stderr
    return out


def contents(paths: dict[str, Path]) -> dict[str, bytes | None]:
    return {name: path.read_bytes() if path.exists() else None for name, path in paths.items()}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_one_triple(out: Path) -> bool:
    """Whether public, answers and report at out are one freeze's: each bound to the others."""
    public, answers, report = (out / f"{name}.json" for name in NAMES)
    bundle, summary = json.loads(answers.read_bytes()), json.loads(report.read_bytes())
    corpus = sha256(public.read_bytes())
    return bundle["corpus_sha256"] == corpus == summary["corpus_sha256"] and summary["answers_sha256"] == sha256(
        answers.read_bytes()
    )


def work_directories(*places: Path) -> list[Path]:
    """Work directories of s8f-duck runs (this project's temporary files) in these places."""
    return sorted(p for place in places for p in place.iterdir() if "s8f-duck-work-" in p.name)


def one_line(stderr: str) -> str:
    """The stderr of a failed command, checked to be one line and no traceback."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]
