"""The exact SQL baseline: blind by construction, and exact on S8f and on tricky corpora."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, S8F, S8F_ANSWERS, S8F_PUBLIC, issue, needs_s8f, run_cli, write_json


def grade(answers: Path, submission: Path, out: Path) -> dict[str, Any]:
    result = run_cli("grade", "--answers", answers, "--submission", submission, "--output", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(out.read_text())


def assert_flawless(report: dict[str, Any]) -> None:
    assert report["quality_pass"] is True
    assert report["exact_records"] == report["test_records"] > 0
    for key in ("false_positive_facts", "false_negative_facts", "aggregate_errors", "citation_errors"):
        assert report[key] == 0
    assert all(s["false_positive_facts"] == s["false_negative_facts"] == 0 for s in report["breakdown"]["slices"])
    assert all(a["exact"] for a in report["breakdown"]["aggregates"])


def test_baseline_cannot_be_given_an_answer_path() -> None:
    help_text = run_cli("baseline", "--help").stdout
    assert "--public" in help_text and "--answers" not in help_text
    result = run_cli("baseline", "--public", "p.json", "--output", "s.json", "--answers", "a.json")
    assert result.returncode == 2 and "No such option" in result.stderr


@needs_s8f
def test_baseline_sees_only_the_public_corpus_and_is_exact_on_s8f(tmp_path: Path) -> None:
    sandbox = tmp_path / "candidate"
    sandbox.mkdir()
    shutil.copy(S8F_PUBLIC, sandbox / "public.json")
    result = run_cli("baseline", "--public", "public.json", "--output", "submission.json", cwd=sandbox)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in sandbox.iterdir()) == ["public.json", "submission.json"]
    submission = json.loads((sandbox / "submission.json").read_bytes())
    assert submission["schema"] == "fak-microcontext-submission/1"
    assert len(submission["answers"]) == 1000
    report = grade(S8F_ANSWERS, sandbox / "submission.json", tmp_path / "grade.json")
    assert_flawless(report)
    assert report["test_records"] == 680


def tricky_corpus() -> list[dict[str, Any]]:
    """Text that trips up regex engines, case mapping and JSON writers."""
    return [
        issue(3, "Crash on start", "Duplicate of #4 and see #5", labels=["bug", "Bug", "bug", ""]),
        issue(4, "Crash on start", "", state="CLOSED", closed="2026-01-03T00:00:00Z", labels=["Ä", "Z", "a"]),
        issue(5, "é#3 then x#4 and ##9", "CONFLİCT with #0003; duplicateſ #3", created="2026-01-02T00:00:00+05:00"),
        issue(6, "<b>bold</b> & 'quotes' \"double\"", "line\u2028sep\u2029para\x01\x7f tab\t", state="open"),
        issue(7, "Supersedes by #6", "Duplicate\u00a0of #5 is not a duplicate; mismatch, Disagree",
              created="2026-01-02T00:00:00.5-03:00", updated="2026-01-05T00:00:00.250Z"),
        issue(8, "#12345678 and #109_ and #0", "", labels=["good first issue"]),
        issue(9, "Samsung dgx12 node-agent-netra", "Lab DGX7 mismatch #8#9", labels=["größe"]),
        issue(10, "tie", "inconsistent", created="2026-01-04T00:00:00Z"),
        issue(11, "tie too", "🎉 contradicts #10", created="2026-01-04T00:00:00Z"),
        *[issue(n, f"filler {n}", f"body {n} refs #{n - 1}", labels=["filler"]) for n in range(20, 44)],
    ]  # fmt: skip


def test_baseline_is_exact_on_a_tricky_corpus_from_its_public_file_alone(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "raw.json", tricky_corpus())
    frozen = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    result = run_cli(
        "freeze", raw, "--source", "tricky", "--min-records", "10",
        "--public", frozen["public"], "--answers", frozen["answers"], "--report", frozen["report"],
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    sandbox = tmp_path / "candidate"
    sandbox.mkdir()
    shutil.copy(frozen["public"], sandbox / "public.json")
    result = run_cli("baseline", "--public", "public.json", "--output", "submission.json", cwd=sandbox)
    assert result.returncode == 0, result.stderr
    assert_flawless(grade(frozen["answers"], sandbox / "submission.json", tmp_path / "grade.json"))


@needs_s8f
def test_make_baseline_runs_grades_and_records_the_baseline_on_s8f(tmp_path: Path) -> None:
    """`make baseline` runs the SQL baseline through `s8f-duck run`, like any candidate."""
    import duckdb

    out = tmp_path / "s8f"
    result = subprocess.run(
        ["make", "--no-print-directory", "baseline", "DATASET=s8f", f"OUT={out}", f"S8F={S8F}"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS: 680/680 test records exact" in result.stdout
    with duckdb.connect(str(out / "runs.duckdb"), read_only=True) as con:
        ((name, outcome, exact, run_dir),) = con.execute("SELECT name, outcome, exact_records, run_dir FROM runs").fetchall()
    assert (name, outcome, exact) == ("sql-baseline", "graded", 680)
    assert_flawless(grade(out / "answers.json", Path(run_dir) / "submission.json", tmp_path / "grade.json"))


PUBLIC_RECORD = {"id": "issue-7", "split": "test", "number": 7, "title": "t", "body": "", "created_at": "2026-01-01T00:00:00Z",
                 "updated_at": "2026-01-01T00:00:00Z", "url": "u", "state": "OPEN", "labels": None, "closed_at": None,
                 "title_sha256": "x", "body_sha256": "y"}  # fmt: skip


@pytest.mark.parametrize(
    "change, message",
    [
        ({"number": "7"}, "records[0]: field 'number' must be a positive integer"),
        ({"title": 5}, "records[0] (number 7): field 'title' must be a string, got number"),
        ({"created_at": "2026-13-01T00:00:00Z"}, "records[0] (number 7): field 'created_at': not an RFC 3339 timestamp"),
        ({"labels": [1]}, "records[0] (number 7): field 'labels' must be null or an array of strings"),
    ],
)
def test_unusable_public_corpus_exits_2(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    corpus = {"schema": "fak-microcontext-corpus/1", "source": "s", "frozen_at": "2026-01-01T00:00:00Z",
              "records": [{**PUBLIC_RECORD, **change}]}  # fmt: skip
    write_json(tmp_path / "public.json", corpus)
    result = run_cli("baseline", "--public", tmp_path / "public.json", "--output", tmp_path / "s.json")
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize("dataset", ["demo"])
def test_baseline_is_exact_on_the_demo_dump(tmp_path: Path, dataset: str) -> None:
    raw = REPO / "experiments" / dataset / f"gh-issues-{dataset}.json"
    frozen = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    result = run_cli("freeze", raw, "--source", dataset, "--public", frozen["public"],
                     "--answers", frozen["answers"], "--report", frozen["report"])  # fmt: skip
    assert result.returncode == 0, result.stderr
    result = run_cli("baseline", "--public", frozen["public"], "--output", tmp_path / "submission.json")
    assert result.returncode == 0, result.stderr
    assert_flawless(grade(frozen["answers"], tmp_path / "submission.json", tmp_path / "grade.json"))
