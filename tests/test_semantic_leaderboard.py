"""Candidates graded on the adjudicated fields, compared on the leaderboard: runs with
`--semantic` (the gold copied, one label everywhere, the majority-label baseline of
examples/, and examples/model_candidate.py asking the loopback OpenAI-compatible test
server through --allow-endpoint), then the leaderboard's semantic scores with their
ceiling, per label, the paired comparison, cost against quality, and the page in
headless Chromium."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import duckdb
import pytest
from adjudicated import RUBRIC, made_gold
from browser import needs_chromium, open_page
from conftest import REPO, S8F_ANSWERS, S8F_PUBLIC, S8F_PUBLIC_SHA256, run_cli
from openai_server import openai_server

from s8f_duck.reading.schemas import SUBMISSION_SCHEMA

BASE = Path(sys.base_prefix)
PYTHON = str(BASE / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}")
PYTHON_MOUNT = [] if BASE.is_relative_to("/usr") else ["--ro", str(BASE)]


@pytest.fixture(scope="module")
def board_runs(packet: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A runs database of four candidates graded on a semantic bundle, and the bundle."""
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    root = tmp_path_factory.mktemp("semantic-board")
    (root / "gold").mkdir()
    semantic = made_gold(packet, root / "gold")
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    db = root / "runs.duckdb"
    common = ["run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "--semantic", semantic,
              *PYTHON_MOUNT, "-q"]  # fmt: skip

    def copied(name: str, entries: list[dict[str, Any]]) -> None:
        directory = root / name
        directory.mkdir()
        (directory / "sub.json").write_text(json.dumps({"schema": SUBMISSION_SCHEMA, "corpus_sha256": S8F_PUBLIC_SHA256,
                                                        "answers": [], "semantic": entries}))  # fmt: skip
        done = run_cli(*common, "--name", name, "--candidate-dir", directory,
                       "--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")  # fmt: skip
        assert "graded" in done.stdout, done.stdout + done.stderr

    copied("gold-copied", [{"id": g["id"], "field": g["field"], "values": g["values"]} for g in bundle["gold"]])
    first = {f["name"]: [f["values"][0]] for f in bundle["rubric"]}
    copied("first-label", [{"id": g["id"], "field": g["field"], "values": first[g["field"]]} for g in bundle["gold"]])
    done = run_cli(*common, "--name", "majority", "--candidate-dir", REPO / "examples",
                   "--", PYTHON, "/candidate/majority_candidate.py", "/candidate/rubrics/triage.toml")  # fmt: skip
    assert "graded" in done.stdout, done.stdout + done.stderr

    candidate = root / "model-candidate"
    candidate.mkdir()
    shutil.copy(REPO / "examples" / "model_candidate.py", candidate)
    shutil.copy(RUBRIC, candidate / "triage.toml")
    shutil.copy(packet, candidate / "packet.json")  # public text only: which records to spend tokens on
    with openai_server("keyword") as server:
        upstream = urlsplit(server.url)
        done = run_cli(*common, "--name", "model-keyword", "--candidate-dir", candidate,
                       "--allow-endpoint", f"llm={upstream.scheme}://{upstream.netloc}",
                       "--", PYTHON, "/candidate/model_candidate.py", "/candidate/triage.toml",
                       "--packet", "/candidate/packet.json")  # fmt: skip
        answered = len(server.answered)
    assert "graded" in done.stdout, done.stdout + done.stderr
    assert answered == 40  # the packet's test records, one request each
    return {"db": db, "semantic": semantic, "bundle": bundle, "root": root}


def leaderboard(board_runs: dict[str, Any], *extra: str) -> dict[str, Any]:
    done = run_cli("leaderboard", "--runs", board_runs["db"], "--resamples", "300", "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_each_run_is_scored_on_each_field_beside_the_ceiling(board_runs: dict[str, Any]) -> None:
    board = leaderboard(board_runs)
    bundle = board_runs["bundle"]
    names = {r["run_id"]: r["name"] for r in board["runs"]}
    scores = board["semantic"]["scores"]
    assert len(scores) == 4 * len(bundle["rubric"])
    ceilings = {c["field"]: c["raw_agreement"] for c in bundle["ceilings"]}
    for s in scores:
        assert s["ceiling_raw_agreement"] == ceilings[s["field"]]
        assert s["accuracy_low"] <= s["accuracy"] <= s["accuracy_high"]
        if names[s["run_id"]] == "gold-copied":
            assert s["accuracy"] == 1.0
        if names[s["run_id"]] == "first-label":
            gold = [g for g in bundle["gold"] if g["split"] == "test" and g["field"] == s["field"]]
            first = next(f["values"][0] for f in bundle["rubric"] if f["name"] == s["field"])
            assert s["accuracy"] == pytest.approx(sum(g["values"] == [first] for g in gold) / len(gold))
    overall = {names[o["run_id"]]: o for o in board["semantic"]["overall"]}
    assert overall["gold-copied"]["accuracy"] == 1.0 and set(overall) == {"gold-copied", "first-label", "majority",
                                                                         "model-keyword"}  # fmt: skip
    assert all(o["accuracy_low"] <= o["accuracy"] <= o["accuracy_high"] for o in overall.values())
    labels = [label for label in board["semantic"]["labels"] if names[label["run_id"]] == "gold-copied"]
    assert labels and all(label["f1"] == 1.0 for label in labels)
    assert all(label["f1_low"] <= label["f1"] <= label["f1_high"] for label in board["semantic"]["labels"])
    text = run_cli("leaderboard", "--runs", board_runs["db"], "--resamples", "300").stdout
    assert "Adjudicated fields" in text and "ceiling" in text


def test_rank_by_adjudicated_and_by_a_field(board_runs: dict[str, Any]) -> None:
    """--rank-by adjudicated ranks on the accuracy over every field (semantic overall), a
    field's name on that field's accuracy: the order of those values, with their n."""
    board = leaderboard(board_runs, "--rank-by", "adjudicated")
    overall = {o["run_id"]: o for o in board["semantic"]["overall"]}
    ranked = [r for r in board["runs"] if r["ranked_value"] is not None]
    assert board["ranked_by"]["key"] == "adjudicated" and len(ranked) == 4
    assert [r["ranked_value"] for r in ranked] == pytest.approx([overall[r["run_id"]]["accuracy"] for r in ranked])
    assert [r["ranked_value"] for r in ranked] == sorted((r["ranked_value"] for r in ranked), reverse=True)
    assert ranked[0]["name"] == "gold-copied" and ranked[0]["rank"] == 1
    fields = len(board_runs["bundle"]["rubric"])  # n: the records graded, each answered on every field
    assert [r["ranked_n"] * fields for r in ranked] == [overall[r["run_id"]]["answers"] for r in ranked]
    field = board_runs["bundle"]["rubric"][0]["name"]
    by_field = leaderboard(board_runs, "--rank-by", field)
    assert by_field["ranked_by"]["key"] == f"adjudicated:{field}"
    accuracy = {s["run_id"]: s["accuracy"] for s in by_field["semantic"]["scores"] if s["field"] == field}
    assert [r["ranked_value"] for r in by_field["runs"] if r["ranked_value"] is not None] == pytest.approx(
        sorted(accuracy.values(), reverse=True), abs=1e-5)  # (the run records its grade's accuracy rounded)

def test_the_model_candidate_s_requests_and_tokens_are_recorded(board_runs: dict[str, Any]) -> None:
    with duckdb.connect(str(board_runs["db"]), read_only=True) as con:
        (requests, tokens), = con.execute(
            "SELECT count(*), sum(total_tokens) FROM run_requests JOIN runs USING (run_id) WHERE name = 'model-keyword'"
        ).fetchall()  # fmt: skip
    assert requests == 40 and tokens > 0
    board = leaderboard(board_runs)
    model = next(r for r in board["runs"] if r["name"] == "model-keyword")
    assert (model["requests"], model["total_tokens"]) == (40, tokens)


def test_a_paired_comparison_covers_the_adjudicated_fields(board_runs: dict[str, Any]) -> None:
    board = leaderboard(board_runs, "--compare", "gold-copied", "first-label")
    differences = board["comparison"]["semantic_differences"]
    assert [d["field"] for d in differences] == [f["name"] for f in board_runs["bundle"]["rubric"]]
    for d in differences:
        assert d["accuracy_a"] == 1.0 and d["difference"] == pytest.approx(1.0 - d["accuracy_b"])
        assert d["low"] <= d["difference"] <= d["high"]
        assert d["excludes_zero"] == (d["low"] > 0)


@needs_chromium
def test_the_page_shows_each_field_with_one_mark_per_run_and_the_ceiling(
    board_runs: dict[str, Any], browser: Any
) -> None:
    page = board_runs["root"] / "leaderboard.html"
    done = run_cli("leaderboard", "--runs", board_runs["db"], "--resamples", "300", "--html", page)
    assert done.returncode == 0, done.stderr
    tab, seen = open_page(browser, page)
    section = tab.locator("#semantic-section")
    assert section.is_visible()
    charts = tab.locator("#semantic-charts .chart")
    assert charts.count() == len(board_runs["bundle"]["rubric"])
    for k in range(charts.count()):
        assert charts.nth(k).locator("circle.mark").count() == 4  # one mark per run graded on the fields
        assert charts.nth(k).locator("line.ceiling").count() == 1
    tab.select_option("#quality", "semantic")
    assert tab.locator("#cost-chart circle.mark").count() == 4
    assert seen["errors"] == [] and seen["dialogs"] == [] and set(seen["requests"]) == {page.as_uri()}
    tab.context.close()
