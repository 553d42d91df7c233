"""grade --created-after: the window member's figures, counted here from the public corpus's
created_at and the answers' facts, on the real S8f corpus."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli, write_json

pytestmark = needs_s8f


def _facts(answer: dict[str, Any]) -> set[str]:
    return ({f"state:{answer['state']}"} | {f"label:{x}" for x in answer.get("labels") or []}
            | {f"ref:{x}" for x in answer.get("references") or []}
            | {f"dup:{x}" for x in answer.get("duplicate_targets") or []}
            | {f"contradiction:{x}" for x in answer.get("scope_contradictions") or []})  # fmt: skip


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The answers as a submission, with facts dropped and added on some records."""
    bundle = json.loads(S8F_ANSWERS.read_text())
    answers = bundle["answers"]
    for n, a in enumerate(answers):
        if n % 3 == 0:
            a["references"] = a["references"][1:]
        if n % 7 == 0:
            cues = a["scope_contradictions"]
            a["scope_contradictions"] = [] if "mismatch" in cues else [*cues, "mismatch"]
    submission = {"schema": "fak-microcontext-submission/1", "corpus_sha256": bundle["corpus_sha256"],
                  "answers": answers, "aggregates": bundle["aggregates"]}  # fmt: skip
    return write_json(tmp_path_factory.mktemp("window") / "noisy.json", submission)


def _grade(submission: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("grade", "--answers", S8F_ANSWERS, submission, "--format", "json", *extra)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("created_after", ["2026-08-01", "2026-07-20T12:00:00+02:00"])
def test_window_counts_equal_counts_from_created_at(noisy: Path, created_after: str) -> None:
    report = _grade(noisy, "--created-after", created_after, "--public", S8F_PUBLIC)
    cutoff = _instant(created_after if "T" in created_after else created_after + "T00:00:00Z")
    created = {r["id"]: _instant(r["created_at"]) for r in json.loads(S8F_PUBLIC.read_text())["records"]}
    gold = {a["id"]: a for a in json.loads(S8F_ANSWERS.read_text())["answers"] if a["split"] == "test"}
    sent = {a["id"]: a for a in json.loads(noisy.read_text())["answers"]}
    window = [i for i in gold if created[i] >= cutoff]
    assert 0 < len(window) < len(gold)
    fp = sum(len(_facts(sent[i]) - _facts(gold[i])) for i in window)
    fn = sum(len(_facts(gold[i]) - _facts(sent[i])) for i in window)
    exact = sum(_facts(sent[i]) == _facts(gold[i]) for i in window)
    w = report["window"]
    assert (w["records"], w["exact_records"], w["false_positive_facts"], w["false_negative_facts"]) == (
        len(window), exact, fp, fn)
    assert w["aggregates_windowed"] is False and w["public_sha256"] == report["corpus_sha256"]
    refs = next(s for s in w["slices"] if s["slice"] == "references")
    gold_refs = sum(len(set(gold[i]["references"])) for i in window)
    missed = sum(len(set(gold[i]["references"]) - set(sent[i]["references"])) for i in window)
    assert refs["gold_facts"] == gold_refs and refs["false_negative_facts"] == missed
    assert refs["f1_low"] <= refs["f1"] <= refs["f1_high"]
    f1 = [s["f1"] for s in w["slices"] if s["slice"] in ("references", "duplicate_targets", "scope_contradictions")
          and s["gold_facts"] > 0]  # fmt: skip
    assert w["primary_score"] == pytest.approx(sum(f1) / len(f1), abs=2e-4)
    assert w["primary_score_low"] <= w["primary_score"] <= w["primary_score_high"]


def test_window_before_every_record_is_the_whole_grade(noisy: Path) -> None:
    whole = _grade(noisy)
    report = _grade(noisy, "--created-after", "2000-01-01", "--public", S8F_PUBLIC)
    assert {k: v for k, v in report.items() if k != "window"} == whole and "window" not in whole
    w = report["window"]
    assert (w["records"], w["exact_records"], w["false_positive_facts"], w["false_negative_facts"]) == (
        whole["test_records"], whole["exact_records"], whole["false_positive_facts"], whole["false_negative_facts"])
    for mine, theirs in zip(w["slices"], whole["breakdown"]["slices"], strict=True):
        assert (mine["slice"], mine["gold_facts"], mine["submitted_facts"], mine["false_negative_facts"]) == (
            theirs["slice"], theirs["gold_facts"], theirs["submitted_facts"], theirs["false_negative_facts"])
        assert (mine["precision"], mine["recall"]) == (theirs["precision"], theirs["recall"])


@pytest.mark.parametrize("bad", ["2026-13-01", "yesterday", "2026-07-01T10:00:00"])
def test_a_bad_date_is_refused_with_one_line(noisy: Path, bad: str) -> None:
    result = run_cli("grade", "--answers", S8F_ANSWERS, noisy, "--created-after", bad, "--public", S8F_PUBLIC)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--created-after" in result.stderr and bad in result.stderr


def test_a_public_corpus_of_another_corpus_is_refused(noisy: Path, tmp_path: Path) -> None:
    public = json.loads(S8F_PUBLIC.read_text())
    public["source"] = "another"
    other = write_json(tmp_path / "other.json", public)
    result = run_cli("grade", "--answers", S8F_ANSWERS, noisy, "--created-after", "2026-08-01", "--public", other)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--public" in result.stderr
    alone = run_cli("grade", "--answers", S8F_ANSWERS, noisy, "--created-after", "2026-08-01")
    assert alone.returncode == 2 and alone.stderr.count("\n") == 1 and "--public" in alone.stderr


def test_the_window_counts_the_adjudicated_accuracy_per_field(packet: Path, tmp_path: Path) -> None:
    """With --semantic: each rubric field's accuracy over the window's gold records, counted
    here from the semantic bundle, a submission right on every other record and created_at."""
    from adjudicated import made_gold

    semantic = made_gold(packet, tmp_path)
    bundle = json.loads(semantic.read_text())
    gold = [g for g in bundle["gold"] if g["split"] == "test"]
    entries = [{"id": g["id"], "field": g["field"], "values": g["values"] if n % 2 else ["cannot tell"]}
               for n, g in enumerate(gold)]  # fmt: skip
    submission = write_json(tmp_path / "sub.json", {"schema": "fak-microcontext-submission/1",
                            "corpus_sha256": json.loads(S8F_ANSWERS.read_text())["corpus_sha256"], "answers": [],
                            "semantic": entries})  # fmt: skip
    created = {r["id"]: _instant(r["created_at"]) for r in json.loads(S8F_PUBLIC.read_text())["records"]}
    cutoff = "2026-08-01"
    report = _grade(submission, "--semantic", semantic, "--created-after", cutoff, "--public", S8F_PUBLIC)
    assert "semantic" in report and "semantic" not in _grade(submission, "--created-after", cutoff, "--public",
                                                             S8F_PUBLIC)["window"]  # fmt: skip
    sent = {(e["id"], e["field"]): e["values"] for e in entries}
    for field in report["window"]["semantic"]:
        mine = [g for g in gold if g["field"] == field["field"] and created[g["id"]] >= _instant(cutoff + "T00:00:00Z")]
        right = sum(sorted(sent[(g["id"], g["field"])]) == sorted(g["values"]) for g in mine)
        assert field["records"] == len(mine) > 0 and field["answered"] == len(mine)
        assert field["accuracy"] == pytest.approx(right / len(mine), abs=5e-5)
