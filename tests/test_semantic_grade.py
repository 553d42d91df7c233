"""`grade --semantic`: a submission's answers to the rubric graded against the semantic
bundle of the adjudication tests (three adjudicators on the S8f packet): the gold copied
scores 1, one label everywhere scores what scikit-learn counts, excluded records are not
graded, every interval holds its point, and without --semantic the grade is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from adjudicated import made_gold
from conftest import S8F_ANSWERS, S8F_PUBLIC_SHA256, needs_s8f, run_cli

from s8f_duck.reading.schemas import SUBMISSION_SCHEMA


@pytest.fixture(scope="module")
def semantic(packet: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_gold(packet, tmp_path_factory.mktemp("gold"))


def submission(folder: Path, entries: list[dict[str, Any]], name: str = "submission.json") -> Path:
    path = folder / name
    path.write_text(json.dumps({"schema": SUBMISSION_SCHEMA, "corpus_sha256": S8F_PUBLIC_SHA256, "answers": [],
                                "semantic": entries}), encoding="utf-8")  # fmt: skip
    return path


def graded(submitted: Path, semantic: Path, split: str = "test", *extra: str) -> dict[str, Any]:
    result = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", submitted, "--semantic", semantic,
                     "--split", split, "--format", "json", *extra)  # fmt: skip
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)["semantic"]


@needs_s8f
@pytest.mark.parametrize("split", ["test", "tune"])
def test_the_gold_copied_scores_one_on_every_field(semantic: Path, tmp_path: Path, split: str) -> None:
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    copied = submission(tmp_path, [{"id": g["id"], "field": g["field"], "values": g["values"]} for g in bundle["gold"]])
    grade = graded(copied, semantic, split)
    assert [f["field"] for f in grade["fields"]] == [f["name"] for f in bundle["rubric"]]
    for field in grade["fields"]:
        assert (field["accuracy"], field["coverage"], field["macro_f1"]) == (1.0, 1.0, 1.0)
        assert field["records"] == sum(g["split"] == split and g["field"] == field["field"] for g in bundle["gold"])
        ceiling = next(c for c in bundle["ceilings"] if (c["field"], c["split"]) == (field["field"], split))
        assert (field["ceiling"], field["ceiling_high"], field["ceiling_alpha"]) == (
            ceiling["ceiling"], ceiling["ceiling_high"], ceiling["alpha"])  # the graded split's ceiling
        assert field["above_ceiling"] == (ceiling["ceiling_high"] < 1.0)
        assert field["weak"] and "alpha" in field["weak"]  # CHOICES' gold, written with --allow-weak
    assert ("first_incorrect" in grade) == (split != "test")  # test: the figures only


@needs_s8f
def test_one_label_everywhere_scores_what_scikit_learn_counts(semantic: Path, tmp_path: Path) -> None:
    """Per label precision, recall and F1 and macro-F1 equal scikit-learn's over the
    graded records; the records the gold excludes are not graded even when answered."""
    from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support

    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    first = {f["name"]: f["values"][0] for f in bundle["rubric"]}
    excluded = [(e["id"], e["field"]) for e in bundle["excluded"]]
    answers = [{"id": g["id"], "field": g["field"], "values": [first[g["field"]]]} for g in bundle["gold"]]
    answers += [{"id": i, "field": f, "values": [first[f]]} for i, f in excluded]
    grade = graded(submission(tmp_path, answers), semantic)
    for field in grade["fields"]:
        gold = [g["values"][0] for g in bundle["gold"] if g["split"] == "test" and g["field"] == field["field"]]
        given = [first[field["field"]]] * len(gold)
        assert field["records"] == len(gold) and field["answered"] == len(gold)
        assert field["accuracy"] == pytest.approx(accuracy_score(gold, given), abs=1e-6)
        assert field["macro_f1"] == pytest.approx(f1_score(gold, given, average="macro", zero_division=0), abs=1e-6)
        present = sorted(set(gold) | set(given))
        precision, recall, f1, _ = precision_recall_fscore_support(gold, given, labels=present, zero_division=0)
        by_label = {label["label"]: label for label in field["labels"]}
        for k, name in enumerate(present):
            assert by_label[name]["recall"] == pytest.approx(recall[k], abs=1e-6)
            assert by_label[name]["f1"] == pytest.approx(f1[k], abs=1e-6)
            if by_label[name]["given"]:
                assert by_label[name]["precision"] == pytest.approx(precision[k], abs=1e-6)
        for name in ("coverage", "accuracy", "macro_f1"):
            assert field[f"{name}_low"] <= field[name] <= field[f"{name}_high"]


@needs_s8f
def test_invalid_entries_are_no_answer_and_an_unbound_submission_answers_nothing(semantic: Path, tmp_path: Path) -> None:
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    tune = [g for g in bundle["gold"] if g["split"] == "tune"]
    outside = [{"id": g["id"], "field": g["field"], "values": ["not a label"]} for g in tune[:3]]
    two = [{"id": g["id"], "field": g["field"], "values": ["yes", "no"]} for g in tune if g["field"] == "actionable"][:2]
    grade = graded(submission(tmp_path, [*outside, *two, {"id": "issue-1", "field": "nope", "values": ["x"]}]),
                   semantic, "tune")  # fmt: skip
    assert grade["invalid_entries"] == 5  # six entries; of the two for the first record's actionable, the last
    reasons = sorted({e["reason"] for e in grade["first_invalid"]})
    assert reasons == ["a label outside the rubric", "more than one label", "unknown field"]
    assert all(f["answered"] == 0 and f["accuracy"] == 0 for f in grade["fields"])
    unbound = tmp_path / "unbound.json"
    copied = [{"id": g["id"], "field": g["field"], "values": g["values"]} for g in bundle["gold"]]
    unbound.write_text(json.dumps({"schema": SUBMISSION_SCHEMA, "corpus_sha256": "0" * 64, "answers": [],
                                   "semantic": copied}), encoding="utf-8")  # fmt: skip
    grade = graded(unbound, semantic)
    assert grade["corpus_bound"] is False and all(f["answered"] == 0 for f in grade["fields"])


@needs_s8f
def test_without_semantic_the_grade_is_unchanged_and_bad_input_is_refused(semantic: Path, tmp_path: Path) -> None:
    copied = submission(tmp_path, [{"id": "issue-1", "field": "kind", "values": ["bug"]}])
    outputs = []
    for extra in ([], ["--semantic", semantic]):
        out = tmp_path / f"grade{len(outputs)}.json"
        result = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", copied, "--output", out, *extra)
        assert result.returncode == 1, result.stderr
        outputs.append(json.loads(out.read_text(encoding="utf-8")))
    assert "semantic" not in outputs[0] and outputs[1].pop("semantic")
    assert outputs[0] == outputs[1]  # the S8f grade's fields as they were
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"corpus_sha256": S8F_PUBLIC_SHA256, "semantic": [{"id": 5}]}), encoding="utf-8")
    other = tmp_path / "other-semantic.json"
    other.write_text(semantic.read_text(encoding="utf-8").replace('"answers_sha256": "', '"answers_sha256": "0'),
                     encoding="utf-8")  # fmt: skip
    for submitted, bundle, message in ((broken, semantic, "at `$.semantic[0].id`"),
                                       (copied, other, "goes with another answer bundle"),
                                       (copied, S8F_ANSWERS, "expected 's8f-duck-semantic-answers/1'")):  # fmt: skip
        result = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", submitted, "--semantic", bundle,
                         "--output", tmp_path / "no.json")  # fmt: skip
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "no.json").exists()
