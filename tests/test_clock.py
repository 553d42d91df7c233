"""Runs against the clock: run --model-cutoff / --created-after and runs --set-cutoff recorded;
the leaderboard's primary score before and after a run's cutoff equal to what grades with
and without the creation window give; the month chart drawn in headless Chromium, one point
per month with records."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest

from conftest import S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli, write_json

pytestmark = needs_s8f
DERIVED = ("references", "duplicate_targets", "scope_contradictions")
CUTOFF, LATER_CUTOFF = "2026-07-25", "2026-08-01"


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A runs database of two S8f runs: `noisy` (references dropped on a third of the records,
    a cue added on a seventh) run with --model-cutoff; `exact` (the answers) run with
    --created-after only, its cutoff set afterwards by runs --set-cutoff."""
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    root = tmp_path_factory.mktemp("clock")
    bundle = json.loads(S8F_ANSWERS.read_text())
    exact = {"schema": "fak-microcontext-submission/1", "corpus_sha256": bundle["corpus_sha256"],
             "answers": bundle["answers"], "aggregates": bundle["aggregates"]}  # fmt: skip
    noisy = json.loads(json.dumps(exact))
    for n, a in enumerate(noisy["answers"]):
        if n % 3 == 0:
            a["references"] = a["references"][1:]
        if n % 7 == 0 and "mismatch" not in a["scope_contradictions"]:
            a["scope_contradictions"] = sorted([*a["scope_contradictions"], "mismatch"])
    db = root / "runs.duckdb"
    paths = {}
    for name, document in (("noisy", noisy), ("exact", exact)):
        (root / name).mkdir()
        paths[name] = write_json(root / name / "sub.json", document)
    common = ("run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "-q")
    copy = ("--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")
    done = run_cli(*common, "--name", "noisy", "--candidate-dir", paths["noisy"].parent, "--model-cutoff", CUTOFF,
                   *copy)  # fmt: skip
    assert done.returncode == 1 and "graded" in done.stdout, done.stdout + done.stderr
    done = run_cli(*common, "--name", "exact", "--candidate-dir", paths["exact"].parent, "--created-after", CUTOFF,
                   *copy)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_cli("runs", "--runs", db, "--set-cutoff", "exact", LATER_CUTOFF)
    assert done.returncode == 0 and LATER_CUTOFF in done.stdout, done.stderr
    board = json.loads(run_cli("leaderboard", "--runs", db, "--format", "json", "--resamples", "300").stdout)
    return {"db": db, "root": root, "submissions": paths, "board": board}


def _grade(submission: Path, *extra: str | Path) -> dict[str, Any]:
    done = run_cli("grade", "--answers", S8F_ANSWERS, submission, "--format", "json", *extra)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _primary(slices: dict[str, dict[str, int]]) -> float:
    f1 = [2 * (s["gold"] - s["fn"]) / (2 * s["gold"] - s["fn"] + s["fp"]) for s in slices.values() if s["gold"] > 0]
    return sum(f1) / len(f1)


def test_the_clock_is_recorded(clocked: dict[str, Any]) -> None:
    with duckdb.connect(str(clocked["db"]), read_only=True) as con:
        clock = con.execute("SELECT r.name, c.created_after, c.model_cutoff FROM run_clock AS c "
                            "JOIN runs AS r USING (run_id) ORDER BY c.set_at").fetchall()  # fmt: skip
        dates = con.execute("SELECT count(*), count(DISTINCT public_sha256) FROM record_dates").fetchone()
    assert clock == [("noisy", None, CUTOFF), ("exact", CUTOFF, None), ("exact", CUTOFF, LATER_CUTOFF)]
    assert dates == (len(json.loads(S8F_PUBLIC.read_text())["records"]), 1)  # once per corpus


@pytest.mark.parametrize(("name", "cutoff"), [("noisy", CUTOFF), ("exact", LATER_CUTOFF)])
def test_before_and_after_equal_grades_with_and_without_the_window(clocked: dict[str, Any], name: str,
                                                                   cutoff: str) -> None:  # fmt: skip
    (row,) = [c for c in clocked["board"]["clock"]["cutoffs"] if c["name"] == name]
    whole = _grade(clocked["submissions"][name])
    window = _grade(clocked["submissions"][name], "--created-after", cutoff, "--public", S8F_PUBLIC)["window"]
    all_slices = {s["slice"]: s for s in whole["breakdown"]["slices"] if s["slice"] in DERIVED}
    after = {s["slice"]: {"gold": s["gold_facts"], "fp": s["false_positive_facts"], "fn": s["false_negative_facts"]}
             for s in window["slices"] if s["slice"] in DERIVED}  # fmt: skip
    before = {k: {"gold": s["gold_facts"] - after[k]["gold"], "fp": s["false_positive_facts"] - after[k]["fp"],
                  "fn": s["false_negative_facts"] - after[k]["fn"]} for k, s in all_slices.items()}  # fmt: skip
    assert row["model_cutoff"] == cutoff and row["records_after"] == window["records"]
    assert row["records_before"] + row["records_after"] == whole["test_records"]
    assert row["primary_after"] == pytest.approx(window["primary_score"], abs=5e-5)
    assert row["primary_after"] == pytest.approx(_primary(after), abs=1e-12)
    assert row["primary_before"] == pytest.approx(_primary(before), abs=1e-12)
    assert row["difference"] == pytest.approx(row["primary_after"] - row["primary_before"], abs=1e-12)
    if name == "exact":
        assert row["primary_before"] == row["primary_after"] == 1 and row["difference"] == 0
    for part in ("before", "after"):
        assert row[f"primary_{part}_low"] <= row[f"primary_{part}"] <= row[f"primary_{part}_high"]


def test_the_month_chart_has_a_point_per_month_with_records(clocked: dict[str, Any], browser: Any) -> None:
    from browser import open_page

    page = clocked["root"] / "leaderboard.html"
    done = run_cli("leaderboard", "--runs", clocked["db"], "--resamples", "300", "--html", page)
    assert done.returncode == 0, done.stderr
    months = Counter(r["created_at"][:7] for r in json.loads(S8F_PUBLIC.read_text())["records"] if r["split"] == "test")
    board_months = {m["month"]: m["records"] for m in clocked["board"]["clock"]["months"]}
    assert board_months == dict(months)
    tab, seen = open_page(browser, page)
    assert seen["errors"] == [] and set(seen["requests"]) == {page.as_uri()}
    assert tab.locator("#clock-section").is_visible()
    assert tab.locator("#clock-cutoffs tbody tr").count() == 2
    points = tab.eval_on_selector_all("#clock-months .month-point",
                                      "ps => ps.map(p => [p.dataset.runId, p.dataset.month])")  # fmt: skip
    runs = {r["run_id"] for r in clocked["board"]["runs"]}
    assert sorted(map(tuple, points)) == sorted((run, month) for run in runs for month in months)
    labels = tab.eval_on_selector_all("#clock-months .month-records", "ts => ts.map(t => t.textContent)")
    assert labels == [f"{months[m]} rec." for m in sorted(months)]
    tab.context.close()


def test_bad_dates_and_unknown_runs_are_refused(clocked: dict[str, Any], tmp_path: Path) -> None:
    common = ("run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", tmp_path / "r.duckdb", "--name", "x")
    for option in ("--model-cutoff", "--created-after"):
        done = run_cli(*common, option, "last spring", "--", "/bin/true")
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and option in done.stderr
    assert not (tmp_path / "r.duckdb").exists()
    done = run_cli("runs", "--runs", clocked["db"], "--set-cutoff", "nobody", "2026-01-01")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "nobody" in done.stderr
    done = run_cli("runs", "--runs", clocked["db"], "--set-cutoff", "noisy", "2026-02-30")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--set-cutoff" in done.stderr
