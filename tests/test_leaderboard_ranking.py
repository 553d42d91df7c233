"""What the leaderboard ranks on and whether it separates the runs, on S8f: four runs of
the test split through the real `s8f-duck run` (the SQL baseline's submission twice, one
that copies state and labels and derives nothing, one that derives every reference,
duplicate target and contradiction but gives no labels) and the baseline on tune under
the same name. The primary score, the rank groups, separability (recounted here from the
submissions and the answer bundle on DuckDB's own draws), --rank-by, n beside every
interval, and --compare."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import S8F_ANSWERS, S8F_PUBLIC, run_cli, write_json
from test_leaderboard import facts

DERIVED = ("references", "duplicate_targets", "scope_contradictions")
RESAMPLES = 200
NAMES = ("baseline", "baseline-again", "copies-state-and-labels", "derives-without-labels")


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Keys: db, dir, submissions (name -> path)."""
    if not S8F_PUBLIC.is_file():
        pytest.skip(f"the real S8f corpus is not at {S8F_PUBLIC.parent} (../shared is absent)")
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    root = tmp_path_factory.mktemp("ranking")
    base = root / "baseline.json"
    done = run_cli("baseline", "--public", S8F_PUBLIC, "--output", base)
    assert done.returncode == 0, done.stderr
    document = json.loads(base.read_bytes())

    def variant(**blank: list[str]) -> dict[str, Any]:
        return {**document, "answers": [{**a, **blank} for a in document["answers"]]}

    submissions = {
        "baseline": document,
        "baseline-again": document,
        "copies-state-and-labels": variant(references=[], duplicate_targets=[], scope_contradictions=[]),
        "derives-without-labels": variant(labels=[]),
    }
    db, paths = root / "runs.duckdb", {}
    common = ("run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "-q")
    copy = ("--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")
    for name, submission in submissions.items():
        (root / name).mkdir()
        paths[name] = write_json(root / name / "sub.json", submission)
        done = run_cli(*common, "--name", name, "--candidate-dir", root / name, *copy)
        assert done.returncode == 0 or f"({name}): graded;" in done.stdout, done.stdout + done.stderr
    done = run_cli(*common, "--name", "baseline", "--split", "tune", "--candidate-dir", root / "baseline", *copy)
    assert done.returncode == 0, done.stdout + done.stderr
    return {"db": db, "dir": root, "submissions": paths}


def board_of(runs: dict[str, Any], *args: str) -> dict[str, Any]:
    done = run_cli("leaderboard", "--runs", runs["db"], "--format", "json", "--resamples", str(RESAMPLES), *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def board(four_runs: dict[str, Any]) -> dict[str, Any]:
    return board_of(four_runs)


def test_runs(board: dict[str, Any]) -> None:
    print(json.dumps(board["runs"], indent=1)[:3000])
