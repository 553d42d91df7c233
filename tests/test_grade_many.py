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
