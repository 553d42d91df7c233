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


# A run name that would inject markup if the leaderboard page did not escape it.
HOSTILE_NAME = "sleepy </script><img src=x onerror=alert(1)>"
FLIPPED_LABEL = "bug"


@pytest.fixture(scope="session")
def leaderboard_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A runs database of known S8f runs through the real `s8f-duck run`: the SQL
    baseline's submission; one with ten test records missing; one with every reference
    dropped; one with FLIPPED_LABEL's facts flipped on every record; a timed-out run
    (named HOSTILE_NAME); and the baseline graded on the tune split. Keys: db, dir,
    submissions (name -> path), names (the run names in the order they ran)."""
    if not S8F_PUBLIC.is_file():
        pytest.skip(f"the real S8f corpus is not at {S8F} (../shared is absent)")
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    root = tmp_path_factory.mktemp("leaderboard")
    base = root / "baseline.json"
    done = run_cli("baseline", "--public", S8F_PUBLIC, "--output", base)
    assert done.returncode == 0, done.stderr
    document = json.loads(base.read_bytes())
    test_ids = [a["id"] for a in json.loads(S8F_ANSWERS.read_bytes())["answers"] if a["split"] == "test"]
    missing = set(test_ids[:10])

    def variant(change: Any) -> dict[str, Any]:
        copy = json.loads(json.dumps(document))
        copy["answers"] = [a for a in (change(a) for a in copy["answers"]) if a is not None]
        return copy

    submissions = {
        "sql-baseline": document,
        "missing-ten": variant(lambda a: None if a["id"] in missing else a),
        "no-references": variant(lambda a: {**a, "references": []}),
        f"{FLIPPED_LABEL}-flipped": variant(lambda a: {**a, "labels": sorted(set(a["labels"]) ^ {FLIPPED_LABEL})}),
    }
    db = root / "runs.duckdb"
    paths = {}
    for name, submission in submissions.items():
        candidate = root / "candidates" / name
        candidate.mkdir(parents=True)
        paths[name] = write_json(candidate / "sub.json", submission)
    common = ("run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "-q")
    copy = ("--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")
    for name in submissions:
        done = run_cli(*common, "--name", name, "--candidate-dir", paths[name].parent, *copy)
        assert done.returncode == 0 or f"({name}): graded;" in done.stdout, done.stdout + done.stderr
    done = run_cli(*common, "--name", HOSTILE_NAME, "--time-limit", "1", "--", "/bin/sleep", "30")
    assert done.returncode == 1 and "timeout" in done.stdout, done.stdout + done.stderr
    done = run_cli(*common, "--name", "sql-baseline-tune", "--split", "tune", "--candidate-dir",
                   paths["sql-baseline"].parent, *copy)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return {
        "db": db, "dir": root, "submissions": paths,
        "names": [*submissions, HOSTILE_NAME, "sql-baseline-tune"],
    }  # fmt: skip


@pytest.fixture(scope="session")
def packet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An adjudication packet of S8f: 40 tune and 40 test records, the example rubric."""
    if not S8F_PUBLIC.is_file():
        pytest.skip(f"the real S8f corpus is not at {S8F_PUBLIC.parent} (../shared is absent)")
    path = tmp_path_factory.mktemp("packet") / "packet.json"
    rubric = REPO / "examples" / "rubrics" / "triage.toml"
    made = run_cli("adjudicate", "packet", "--public", S8F_PUBLIC, "--rubric", rubric, "--records", "40",
                   "--output", path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    return path


@pytest.fixture(scope="module")
def browser() -> Any:
    """Debian's Chromium, headless, through Playwright (tests/browser.py says when it is skipped);
    closed with its module: Playwright's sync API keeps an event loop running meanwhile,
    where other tests' asyncio.run would fail."""
    from browser import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: `make install` as root installs it, else `apt-get install -y chromium`")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed: pip install -e '.[test]'")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()
