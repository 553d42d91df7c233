"""The tuning loop: a tune or train grade lists the wrong facts themselves (record, slice,
fact, false positive or negative; the first 50) and names its records as the graded
split's; the held-out test grade keeps its fields and bytes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import S8F_ANSWERS, needs_s8f, run_cli
from test_grade import as_submission

pytestmark = needs_s8f


@pytest.fixture(scope="module")
def gold() -> dict[str, Any]:
    return json.loads(S8F_ANSWERS.read_bytes())


def graded(tmp_path: Path, submission: dict[str, Any], *args: str) -> tuple[dict[str, Any], str]:
    path = tmp_path / "submission.json"
    path.write_text(json.dumps(submission, ensure_ascii=False))
    out = tmp_path / "grade.json"
    done = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--output", out, "--format", "table", *args)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(out.read_text()), done.stdout


def test_a_tune_grade_names_an_extra_reference(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    tune = next(a for a in sub["answers"] if a["split"] == "tune")
    tune["references"] = [*tune["references"], 9999999]
    report, table = graded(tmp_path, sub, "--split", "tune")
    wrong = report["breakdown"]["wrong_facts"]
    assert wrong == {"count": 1, "first": [
        {"id": tune["id"], "slice": "references", "fact": "ref:9999999", "kind": "false_positive"}]}  # fmt: skip
    assert "test_records" not in report and report["graded_records"] == 108 and report["graded_split"] == "tune"
    assert list(report)[:3] == ["schema", "corpus_sha256", "graded_records"]
    assert "ref:9999999" in table and tune["id"] in table and "false positive" in table
    assert "107/108 tune records exact" in table


def test_the_first_fifty_wrong_facts_of_a_train_grade_in_order(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    train = [a for a in sub["answers"] if a["split"] == "train" and a["labels"]]
    for answer in train[:60]:
        answer["labels"] = answer["labels"][1:]  # one false negative each
    report, _ = graded(tmp_path, sub, "--split", "train")
    wrong = report["breakdown"]["wrong_facts"]
    assert wrong["count"] == 60 and len(wrong["first"]) == 50
    numbers = [int(w["id"].split("-")[1]) for w in wrong["first"]]
    assert numbers == sorted(numbers) and {w["kind"] for w in wrong["first"]} == {"false_negative"}
    expected = sorted(train[:60], key=lambda a: int(a["id"].split("-")[1]))[:50]
    gold_of = {a["id"]: a for a in gold["answers"]}
    assert [w["fact"] for w in wrong["first"]] == [f"label:{gold_of[a['id']]['labels'][0]}" for a in expected]


def test_the_test_grade_lists_no_wrong_facts_and_keeps_its_fields(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = copy.deepcopy(as_submission(gold))
    first = next(a for a in sub["answers"] if a["split"] == "test")
    first["references"] = [*first["references"], 9999999]
    report, _ = graded(tmp_path, sub)
    assert "wrong_facts" not in report["breakdown"] and report["test_records"] == 680
    assert list(report) == ["schema", "corpus_sha256", "test_records", "exact_records", "false_positive_facts",
                            "false_negative_facts", "aggregate_errors", "citation_errors", "quality_pass",
                            "corpus_bound", "submission_corpus_sha256", "breakdown"]  # fmt: skip
