"""Speed work cannot change results: a 20,000-issue scale-up of S8f (20 independent,
renumbered copies, experiments/scale_up.py) freezes to the answers that follow from the
S8f answers copy by copy, worked out here independently of the SQL."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

import duckdb
import pytest
from conftest import REPO, S8F_ANSWERS, S8F_RAW, S8F_SOURCE, needs_s8f, run_cli

pytestmark = needs_s8f
COPIES = 20
SHIFT = 10_000


def split_of(component: int) -> str:
    bucket = hashlib.sha256(str(component).encode()).digest()[0] % 10
    return "train" if bucket < 2 else "tune" if bucket < 4 else "test"


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("scale")
    raw = work / "raw.json"
    subprocess.run([sys.executable, str(REPO / "experiments" / "scale_up.py"), str(S8F_RAW), str(COPIES), str(raw), "-q"],
                   check=True)  # fmt: skip
    for name, source in (("x20", raw), ("x1", S8F_RAW)):
        result = run_cli("freeze", source, "--source", S8F_SOURCE, "--db", work / f"{name}.duckdb",
                         "--public", work / f"{name}-public.json", "--answers", work / f"{name}-answers.json",
                         "--report", work / f"{name}-report.json", "--quiet")  # fmt: skip
        assert result.returncode == 0, result.stderr
    with duckdb.connect(str(work / "x1.duckdb"), read_only=True) as con:
        components = dict(con.execute("SELECT number, component FROM components").fetchall())
    return {
        "answers": json.loads((work / "x20-answers.json").read_bytes()),
        "report": json.loads((work / "x20-report.json").read_bytes()),
        "components": components,
    }


def test_every_copy_has_the_s8f_answers_renumbered(scaled: dict[str, Any]) -> None:
    s8f = json.loads(S8F_ANSWERS.read_bytes())["answers"]
    numbers = {int(a["id"].removeprefix("issue-")) for a in s8f}
    got = {a["id"]: a for a in scaled["answers"]["answers"]}
    assert len(got) == COPIES * len(s8f)
    for copy in range(COPIES):
        move = lambda n: n + SHIFT * copy if n in numbers else n  # noqa: E731
        for gold in s8f:
            number = int(gold["id"].removeprefix("issue-"))
            expected = {
                "id": f"issue-{number + SHIFT * copy}",
                "split": split_of(scaled["components"][number] + SHIFT * copy),
                "state": gold["state"],
                "labels": gold["labels"],
                "references": sorted(move(n) for n in gold["references"]),
                "duplicate_targets": sorted(move(n) for n in gold["duplicate_targets"]),
                "scope_contradictions": gold["scope_contradictions"],
            }
            assert got[expected["id"]] == expected


def test_aggregates_scale_with_the_copies(scaled: dict[str, Any]) -> None:
    s8f = json.loads(S8F_ANSWERS.read_bytes())["aggregates"]
    aggregates = scaled["answers"]["aggregates"]
    assert aggregates["state_counts"] == {k: v * COPIES for k, v in s8f["state_counts"].items()}
    assert aggregates["label_counts"] == {k: v * COPIES for k, v in s8f["label_counts"].items()}
    # Copy c is shifted by c microseconds: rank all copies' instants here, in Python.
    raw = json.loads(S8F_RAW.read_bytes())
    for key, field in (("newest_issue_ids", "createdAt"), ("most_recently_updated_issue_ids", "updatedAt")):
        instants = [
            (datetime.fromisoformat(r[field].replace("Z", "+00:00")) + timedelta(microseconds=copy), r["number"] + SHIFT * copy)
            for r in raw
            for copy in range(COPIES)
        ]
        top = sorted(instants, reverse=True)[:10]  # ties: the larger number first
        assert aggregates[key] == [f"issue-{number}" for _, number in top]


def test_report_counts_scale_with_the_copies(scaled: dict[str, Any]) -> None:
    report = scaled["report"]
    assert report["records"] == 1000 * COPIES
    assert (report["reference_edges"], report["duplicate_edges"], report["scope_contradictions"]) == (
        2037 * COPIES, 12 * COPIES, 102 * COPIES
    )
    assert all(report["leak_checks"].values())
