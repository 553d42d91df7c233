"""Shared test helpers: the real CLI, small dumps written in tests, and the S8f corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).parent / "s8f-duck"
S8F = REPO.parent / "shared" / "s8f"
S8F_RAW = S8F / "gh-issues-s8f-2026-08-09.json"
S8F_PUBLIC = S8F / "s8f-github-issues-public-2026-08-09.json"
S8F_ANSWERS = S8F / "s8f-github-issues-answers-2026-08-09.json"
S8F_REPORT = S8F / "s8f-github-issues-report-2026-08-09.json"
S8F_SOURCE = "github.com/anthony-chaudhary/fak/issues?state=all&limit=1000"
S8F_PUBLIC_SHA256 = "0740c911815eba7e44c63a14e021f418b66e8a42556d40f14b8b4cd58f173827"
S8F_ANSWERS_SHA256 = "af827ddca1063c602153f80b14523bda8d07e1a7e909a5c487616f2702eda05d"

needs_s8f = pytest.mark.skipif(
    not S8F_RAW.is_file(), reason=f"the real S8f corpus is not at {S8F} (../shared is absent)"
)


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `s8f-duck` command; never raises on a non-zero exit."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [str(CLI), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )


def issue(
    number: int,
    title: str | None = None,
    body: str = "",
    state: str = "OPEN",
    labels: list[str] | None = None,
    created: str = "2026-01-01T00:00:00Z",
    updated: str | None = None,
    closed: str | None = None,
) -> dict[str, Any]:
    """One raw `gh issue list --json` record."""
    return {
        "number": number,
        "title": title if title is not None else f"Issue {number}",
        "body": body,
        "state": state,
        "labels": [{"name": name} for name in (labels or [])],
        "createdAt": created,
        "updatedAt": updated or created,
        "closedAt": closed,
        "url": f"https://github.com/demo/x/issues/{number}",
    }


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def freeze_dump(tmp_path: Path, records: list[dict[str, Any]] | bytes, *extra: str) -> dict[str, Any]:
    """Freeze records with the real CLI (min-records 1); return the parsed artifacts.

    Keys: public, answers, report (dicts) and the raw bytes as public_bytes,
    answers_bytes. Fails the test if the freeze fails.
    """
    raw = tmp_path / "raw.json"
    if isinstance(records, bytes):
        raw.write_bytes(records)
    else:
        write_json(raw, records)
    out = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    result = run_cli(
        "freeze", raw, "--public", out["public"], "--answers", out["answers"], "--report", out["report"],
        "--source", "test", "--min-records", "1", *extra,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    artifacts: dict[str, Any] = {name: json.loads(path.read_bytes()) for name, path in out.items()}
    artifacts["public_bytes"] = out["public"].read_bytes()
    artifacts["answers_bytes"] = out["answers"].read_bytes()
    return artifacts


def answer(artifacts: dict[str, Any], number: int) -> dict[str, Any]:
    """The answer-bundle entry of one issue."""
    return next(a for a in artifacts["answers"]["answers"] if a["id"] == f"issue-{number}")


def record(artifacts: dict[str, Any], number: int) -> dict[str, Any]:
    """The public-corpus record of one issue."""
    return next(r for r in artifacts["public"]["records"] if r["number"] == number)
