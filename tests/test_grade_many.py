"""`s8f-duck grade` of many submissions in one command: each gets the bytes it gets graded
alone (every split), an unusable one is named and the others still graded, and the exit
status is 0 only when every submission passes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli

pytestmark = needs_s8f


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """25 S8f submissions: the SQL baseline, and copies with facts dropped, labels flipped,
    records missing, states swapped, aggregates wrong, in seeded measure."""
    folder = tmp_path_factory.mktemp("varied")
    base_path = folder / "baseline.json"
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", base_path).returncode == 0
    base = json.loads(base_path.read_text(encoding="utf-8"))
    rng = random.Random(31)
    changes: list[Any] = [
        lambda a: {**a, "references": a["references"][1:]},
        lambda a: {**a, "labels": sorted(set(a["labels"]) ^ {"bug"})},
        lambda a: None,
        lambda a: {**a, "state": "OPEN" if a["state"] == "CLOSED" else "CLOSED"},
        lambda a: {**a, "duplicate_targets": []},
    ]
    paths = [base_path]
    for n in range(24):
        change, share = changes[n % len(changes)], rng.choice([0.01, 0.1, 0.5])
        answers = [a if rng.random() > share else change(a) for a in base["answers"]]
        document = {**base, "answers": [a for a in answers if a is not None]}
        if n % 7 == 3:
            document["aggregates"] = {**base["aggregates"], "state_counts": {"OPEN": 1}}
        path = folder / f"variant-{n:02d}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize("split", ["test", "tune", "train"])
def test_each_grade_is_the_one_it_gets_alone(varied: list[Path], tmp_path: Path, split: str) -> None:
    batch = tmp_path / "batch"
    done = run_cli("grade", "--answers", S8F_ANSWERS, *varied, "--split", split, "--output-dir", batch)
    assert done.returncode == 1, done.stderr  # the variants do not pass
    assert len(done.stdout.splitlines()) == len(varied)
    for path in varied:
        alone = tmp_path / f"{path.stem}.alone.json"
        single = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--split", split, "--output", alone)
        assert single.returncode in (0, 1), single.stderr
        assert (batch / f"{path.stem}.grade.json").read_bytes() == alone.read_bytes(), path.name


def test_an_unusable_submission_is_named_and_the_others_graded(varied: list[Path], tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema": "fak-microcontext-submission/1", "answers": [{"id": 5}]}', encoding="utf-8")
    done = run_cli("grade", "--answers", S8F_ANSWERS, varied[0], broken, varied[1], "--format", "jsonl")
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["submission"] for line in lines] == [str(varied[0]), str(broken), str(varied[1])]
    assert lines[0]["grade"]["quality_pass"] and lines[2]["grade"] is not None and lines[1]["grade"] is None
    assert str(broken) in lines[1]["error"] and done.stderr.strip() == f"s8f-duck grade: {lines[1]['error']}"


def test_exit_0_only_when_every_submission_passes_and_bad_options_are_2(varied: list[Path], tmp_path: Path) -> None:
    assert run_cli("grade", "--answers", S8F_ANSWERS, varied[0], "--submission", S8F_ANSWERS).returncode == 0
    assert run_cli("grade", "--answers", S8F_ANSWERS, varied[0], varied[1]).returncode == 1
    for args, message in (((), "no submission given"),
                          ((varied[0], varied[1], "--output", tmp_path / "g.json"), "give --output-dir"),
                          ((varied[0], varied[0], "--output-dir", tmp_path / "d"), "two submissions would write")):  # fmt: skip
        done = run_cli("grade", "--answers", S8F_ANSWERS, *args)
        assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists() and not (tmp_path / "g.json").exists()


def _tricky(base: dict[str, Any]) -> dict[str, str]:
    """Submissions (as text) with what the one reading must get right or hand on: nulls,
    absent fields, repeated keys and map keys, keys in other letter cases, members the
    reference ignores, whitespace, escapes, wrong types."""
    answers = base["answers"]
    first, second = json.dumps(answers[0]), json.dumps(answers[1])
    aggregates = json.dumps(base["aggregates"])
    head = f'"schema": "fak-microcontext-submission/1", "corpus_sha256": "{base["corpus_sha256"]}"'
    rest = ", ".join(json.dumps(a) for a in answers[2:])

    def document(members: str, one: str = first) -> str:
        return "{" + members.replace("ANSWERS", f"[{one}, {second}, {rest}]") + "}"

    nulls = json.dumps({**answers[0], "labels": None, "references": None, "split": None})
    return {
        "as written": document(f'{head}, "answers": ANSWERS, "aggregates": {aggregates}'),
        "nulls": document(f'{head}, "answers": ANSWERS, "aggregates": {aggregates}', nulls),
        "a null answer and one with no fields": document(f'{head}, "answers": [null, {{}}, {second}]'),
        "no aggregates": document(f'{head}, "answers": ANSWERS'),
        "null aggregates and null entries": document(
            f'{head}, "answers": ANSWERS, "aggregates": {{"state_counts": {{"OPEN": null}}, "label_counts": null, '
            '"newest_issue_ids": [null, "x"], "most_recently_updated_issue_ids": []}'),
        "a repeated map key": document(
            f'{head}, "answers": ANSWERS, "aggregates": {{"state_counts": {{"OPEN": 1, "OPEN": 2}}}}'),
        "a repeated answer field": document(f'{head}, "answers": ANSWERS', first[:-1] + ', "state": "OPEN"}'),
        "a repeated member": document(f'{head}, "answers": [], "answers": ANSWERS'),
        "a key in another letter case": document(f'{head}, "Answers": ANSWERS'),
        "an answer key in another letter case": document(f'{head}, "answers": ANSWERS', first.replace('"id"', '"ID"')),
        "a member the reference ignores": document(f'{head}, "answers": ANSWERS, "semantic": [{{"a": 1, "a": 2}}]'),
        "spaces before colons": document(f'{head}, "answers" : ANSWERS, "aggregates" :{aggregates}'),
        "an escaped colon": document(f'{head}, "answers": ANSWERS', first.replace('"id": "', '"id": "\\u003a', 1)),
        "escapes": document(f'{head}, "answers": ANSWERS', first.replace('"state"', '"st\\u0061te"')),
        "a float reference": document(f'{head}, "answers": ANSWERS', json.dumps({**answers[0], "references": [1.0]})),
        "a string where a list goes": document(f'{head}, "answers": ANSWERS', json.dumps({**answers[0], "labels": "x"})),
        "text after the document": document(f'{head}, "answers": ANSWERS') + " {}",
        "not an object": "[1, 2]",
    }


def test_the_one_reading_gives_what_the_checked_reader_gives(varied: list[Path], tmp_path: Path) -> None:
    """Every submission graded in one batch as read once (reading/submissions.py), then again
    with every file sent to the checked reader: the same grade, or the same refusal."""
    from s8f_duck.grading.grade import Grader
    from s8f_duck.reading import submissions

    base = json.loads(varied[0].read_text(encoding="utf-8"))
    paths = []
    for name, text in _tricky(base).items():
        path = tmp_path / f"{name.replace(' ', '-')}.json"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    read_once = [submissions._decoded(path, 0) is not None for path in paths]
    assert read_once[:5] == [True] * 5 and any(read_once[5:]) and not all(read_once[5:])
    with Grader(S8F_ANSWERS) as grader:
        for split in ("test", "tune"):
            batch = grader.grade_many(paths, split)
            original, submissions.WHOLE_BYTES = submissions.WHOLE_BYTES, -1
            try:
                checked = grader.grade_many(paths, split)
            finally:
                submissions.WHOLE_BYTES = original
            for path, once, other in zip(paths, batch, checked):
                assert (once.report, once.error) == (other.report, other.error), (path.name, split)
    assert sum(graded.report is None for graded in batch) >= 5  # the refusals are refusals
