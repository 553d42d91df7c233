"""What a builder needs before publishing an adjudicated score, on the leaderboard: a run
graded by a model that adjudicated its gold is flagged (self-preference) and one asking
another model is not; runs graded on different semantic bundles sit in sections of their
own and are never compared; a weak gold (--allow-weak) is marked beside every score.
examples/model_candidate.py asks the loopback OpenAI-compatible test server through the
runner's proxy, which records the model each request names."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import duckdb
import pytest
from adjudicated import RUBRIC, three
from browser import needs_chromium, open_page
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_PUBLIC_SHA256, run_cli
from openai_server import openai_server

from s8f_duck.reading.schemas import SUBMISSION_SCHEMA

BASE = Path(sys.base_prefix)
PYTHON = str(BASE / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}")
PYTHON_MOUNT = [] if BASE.is_relative_to("/usr") else ["--ro", str(BASE)]
JUDGE = "judge-model"  # the model adjudicator "c" names


def gold(packet: Path, folder: Path, policy: str) -> Path:
    """CHOICES' three adjudicators, "c" a model adjudicator naming its model; weak, so
    written with --allow-weak."""
    folder.mkdir()
    labels = three(packet, folder)
    c = json.loads(labels[2].read_text(encoding="utf-8"))
    c["adjudicator"].update({"kind": "model", "model": JUDGE})
    labels[2].write_text(json.dumps(c), encoding="utf-8")
    made = run_cli("adjudicate", "gold", packet, *labels, "--policy", policy, "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", folder / "semantic.json",
                   "--report", folder / "semantic-report.json", "--resamples", "50", "--allow-weak")  # fmt: skip
    assert made.returncode == 0, made.stderr
    return folder / "semantic.json"


@pytest.fixture(scope="module")
def checked_runs(packet: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    root = tmp_path_factory.mktemp("gold-checks")
    majority, unanimous = gold(packet, root / "majority", "majority"), gold(packet, root / "unanimous", "unanimous")
    db = root / "runs.duckdb"

    def common(semantic: Path) -> list[Any]:
        return ["run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "--semantic", semantic,
                *PYTHON_MOUNT, "-q"]  # fmt: skip

    candidate = root / "model-candidate"
    candidate.mkdir()
    shutil.copy(REPO_EXAMPLES / "model_candidate.py", candidate)
    shutil.copy(RUBRIC, candidate / "triage.toml")
    shutil.copy(packet, candidate / "packet.json")
    with openai_server("keyword") as server:
        upstream = urlsplit(server.url)
        for name, model in (("asks-the-judge", JUDGE), ("asks-another", "other-model")):
            done = run_cli(*common(majority), "--name", name, "--candidate-dir", candidate,
                           "--allow-endpoint", f"llm={upstream.scheme}://{upstream.netloc}",
                           "--", PYTHON, "/candidate/model_candidate.py", "/candidate/triage.toml",
                           "--packet", "/candidate/packet.json", "--model", model)  # fmt: skip
            assert "graded" in done.stdout, done.stdout + done.stderr
    bundle = json.loads(unanimous.read_text(encoding="utf-8"))
    directory = root / "copied"
    directory.mkdir()
    (directory / "sub.json").write_text(json.dumps({
        "schema": SUBMISSION_SCHEMA, "corpus_sha256": S8F_PUBLIC_SHA256, "answers": [],
        "semantic": [{"id": g["id"], "field": g["field"], "values": g["values"]} for g in bundle["gold"]],
    }))  # fmt: skip
    done = run_cli(*common(unanimous), "--name", "unanimous-copy", "--candidate-dir", directory,
                   "--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")  # fmt: skip
    assert "graded" in done.stdout, done.stdout + done.stderr
    return {"db": db, "majority": majority, "unanimous": unanimous}


REPO_EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def adjudicated(text: str) -> list[str]:
    """The lines of the leaderboard's adjudicated sections."""
    sections = [s for s in text.split("\n\n") if s.startswith("Adjudicated fields graded on")]
    assert sections, text
    return [line for section in sections for line in section.splitlines()]  # (the clock's sections follow them)


def board(checked_runs: dict[str, Any], *extra: str) -> Any:
    return run_cli("leaderboard", "--runs", checked_runs["db"], "--resamples", "100", *extra)


def test_the_model_named_in_each_request_is_recorded_and_a_run_asking_a_judge_is_flagged(
    checked_runs: dict[str, Any],
) -> None:
    with duckdb.connect(str(checked_runs["db"]), read_only=True) as con:
        asked = dict(con.execute("SELECT name, list(DISTINCT model) FROM run_request_models JOIN runs USING (run_id) "
                                 "GROUP BY name").fetchall())  # fmt: skip
    assert asked == {"asks-the-judge": [JUDGE], "asks-another": ["other-model"]}
    done = board(checked_runs, "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    names = {r["run_id"]: r["name"] for r in document["runs"]}
    flagged = {names[r["run_id"]]: r["self_preference"] for r in document["semantic"]["runs"]}
    assert flagged == {"asks-the-judge": True, "asks-another": False, "unanimous-copy": False}
    assert all(s["self_preference"] == flagged[names[s["run_id"]]] for s in document["semantic"]["scores"])
    lines = adjudicated(board(checked_runs).stdout)
    assert all(len(line) <= 100 for line in lines)
    judge_lines = [line for line in lines if "asks-the-judge" in line]
    other_lines = [line for line in lines if "asks-another" in line]
    assert judge_lines and all("SELF" in line for line in judge_lines)
    assert other_lines and not any("SELF" in line for line in other_lines)
    csv_text = board(checked_runs, "--format", "csv").stdout
    assert ",semantic,kind,self_preference,true" in csv_text


def test_runs_on_different_bundles_are_sections_of_their_own_and_never_compared(checked_runs: dict[str, Any]) -> None:
    document = json.loads(board(checked_runs, "--format", "json").stdout)
    policies = [b["policy"] for b in document["semantic"]["bundles"]]
    assert sorted(policies) == ["majority", "unanimous"]
    assert {b["model_adjudicators"][0] for b in document["semantic"]["bundles"]} == {JUDGE}
    text = board(checked_runs).stdout
    assert text.count("Adjudicated fields graded on semantic bundle") == 2
    refused = board(checked_runs, "--compare", "asks-another", "unanimous-copy")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "graded on different semantic bundles" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    same = board(checked_runs, "--compare", "asks-another", "asks-the-judge")
    assert same.returncode == 0, same.stderr


def test_weak_gold_is_marked_beside_every_score(checked_runs: dict[str, Any]) -> None:
    document = json.loads(board(checked_runs, "--format", "json").stdout)
    assert document["semantic"]["scores"] and all(s["weak"] for s in document["semantic"]["scores"])
    lines = adjudicated(board(checked_runs).stdout)
    scored = [line for line in lines if any(n in line for n in ("asks-", "unanimous-copy"))]
    assert len(scored) == 9 and all("WEAK" in line for line in scored)
    assert any(line.startswith("weak gold, kind: alpha ") for line in lines)


@needs_chromium
def test_the_page_has_a_chart_per_field_and_bundle_with_the_marks(checked_runs: dict[str, Any], browser: Any) -> None:
    page = checked_runs["db"].parent / "leaderboard.html"
    done = board(checked_runs, "--html", page)
    assert done.returncode == 0, done.stderr
    tab, seen = open_page(browser, page)
    cards = tab.locator("#semantic-charts .chart")
    assert cards.count() == 2 * 3  # three fields, two bundles: never one chart for both golds
    assert len({cards.nth(k).get_attribute("data-bundle") for k in range(cards.count())}) == 2
    titles = tab.locator("#semantic-charts circle.mark title").all_text_contents()
    judge = [t for t in titles if "asks-the-judge" in t]
    other = [t for t in titles if "asks-another" in t]
    assert judge and all(t.startswith("WEAK SELF asks-the-judge") and "WEAK GOLD: alpha" in t for t in judge)
    assert other and all(t.startswith("WEAK asks-another") and "SELF" not in t for t in other)
    assert seen["errors"] == [] and set(seen["requests"]) == {page.as_uri()}
    tab.context.close()


def test_a_ranking_on_an_adjudicated_score_is_within_one_semantic_bundle(checked_runs: dict[str, Any]) -> None:
    """Ranked on an adjudicated score, runs graded on different golds are neither ranked nor
    paired together: the two majority runs make the only pair, and the unanimous run (a
    perfect copy of its own gold) ranks 1 in its bundle without being put above them."""
    for rank_by in ("adjudicated", "kind"):
        done = board(checked_runs, "--format", "json", "--rank-by", rank_by)
        assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        runs = {r["name"]: r for r in document["runs"]}
        assert runs["unanimous-copy"]["ranked_value"] == 1.0 and runs["unanimous-copy"]["rank"] == 1
        assert runs["asks-the-judge"]["rank"] == runs["asks-another"]["rank"] == 1  # not below the copy
        assert runs["asks-the-judge"]["ranked_bundle"] == runs["asks-another"]["ranked_bundle"]
        assert runs["unanimous-copy"]["ranked_bundle"] != runs["asks-the-judge"]["ranked_bundle"]
        key = "adjudicated" if rank_by == "adjudicated" else f"adjudicated:{rank_by}"
        (group,) = document["groups"]
        seps = [s for s in group["separability"] if s["key"] == key]
        assert [(s["bundle"].split()[1], s["pairs"]) for s in seps] == [("majority", 1)]  # 1 pair, not 3
        derived = next(s for s in group["separability"] if s["key"] == "derived")
        assert derived["bundle"] is None and derived["pairs"] == 3  # the fact slices share one gold
    text = board(checked_runs, "--rank-by", "adjudicated").stdout
    assert "ranked within each semantic bundle" in text and "adjudicated on bundle" in text


def test_a_runs_database_written_before_the_gold_was_recorded_still_shows_its_adjudicated_fields(
    checked_runs: dict[str, Any], tmp_path: Path
) -> None:
    """A runs database without run_semantic_gold and run_request_models (written before
    they were recorded) opens: each run's adjudicated section and figures as before, no
    ceiling nor marks, a ranking on them still within one bundle, and a comparison across
    bundles still refused."""
    older = tmp_path / "older.duckdb"
    shutil.copy(checked_runs["db"], older)
    with duckdb.connect(str(older)) as con:
        con.execute("DROP TABLE run_semantic_gold")
        con.execute("DROP TABLE run_request_models")
    current = json.loads(board(checked_runs, "--format", "json").stdout)
    done = run_cli("leaderboard", "--runs", older, "--resamples", "100", "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    figures = ("run_id", "field", "records", "accuracy", "accuracy_low", "accuracy_high", "macro_f1", "coverage")
    assert [[s[f] for f in figures] for s in document["semantic"]["scores"]] == [
        [s[f] for f in figures] for s in current["semantic"]["scores"]]  # fmt: skip
    assert len(document["semantic"]["scores"]) == 9
    assert all(s["ceiling"] is None and s["policy"] is None and not s["self_preference"]
               for s in document["semantic"]["scores"])  # fmt: skip
    assert len(document["semantic"]["bundles"]) == 2
    text = run_cli("leaderboard", "--runs", older, "--resamples", "100").stdout
    assert text.count("Adjudicated fields graded on semantic bundle") == 2 and "unrecorded policy" in text
    ranked = json.loads(run_cli("leaderboard", "--runs", older, "--resamples", "100", "--format", "json",
                                "--rank-by", "adjudicated").stdout)  # fmt: skip
    seps = [s for s in ranked["groups"][0]["separability"] if s["key"] == "adjudicated"]
    assert [s["pairs"] for s in seps] == [1]
    refused = run_cli("leaderboard", "--runs", older, "--compare", "asks-another", "unanimous-copy")
    assert refused.returncode == 2 and "graded on different semantic bundles" in refused.stderr
    page = tmp_path / "board.html"
    done = run_cli("leaderboard", "--runs", older, "--resamples", "100", "--html", page)
    assert done.returncode == 0, done.stderr


def test_the_bundle_sections_stand_beside_the_clock_and_latest(checked_runs: dict[str, Any]) -> None:
    """The sections per semantic bundle, the clock's month chart and --latest together."""
    text = board(checked_runs, "--latest").stdout
    assert text.count("Adjudicated fields graded on semantic bundle") == 2, text
    assert "Primary score by creation month" in text
    every = json.loads(board(checked_runs, "--format", "json").stdout)
    latest = json.loads(board(checked_runs, "--latest", "--format", "json").stdout)
    newest = {}
    for run in sorted(every["runs"], key=lambda r: (r["started_at"], r["run_id"])):
        newest[run["name"]] = run["run_id"]
    assert sorted(r["run_id"] for r in latest["runs"]) == sorted(newest.values())
    assert {s["run_id"] for s in latest["semantic"]["scores"]} <= set(newest.values())
    assert latest["clock"]["months"] and {m["run_id"] for m in latest["clock"]["months"]} <= set(newest.values())
