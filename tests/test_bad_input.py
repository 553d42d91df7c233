"""docs/format.md §1: every unusable dump exits 2, names the record, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import issue, run_cli


def dump(n: int = 50, **changes: Any) -> list[dict[str, Any]]:
    """n valid records; `changes` maps "index.field" to a replacement value."""
    records = [issue(i + 1) for i in range(n)]
    for key, value in changes.items():
        index, field = key.split(".")
        records[int(index)][field] = value
    return records


BAD: dict[str, tuple[bytes | list[Any], str]] = {
    "not JSON": (b'[{"number": 1,', "not JSON"),
    "not an array": (b'{"number": 1}', "expected a JSON array"),
    "record not an object": ([*dump(50), 7], "record 50: expected an object"),
    "too few records": (dump(49), "49 records, fewer than the minimum of 50"),
    "number is a string": (dump(**{"3.number": "4"}), "record 3: field 'number' must be an integer"),
    "number is a fraction": (dump(**{"3.number": 4.5}), "record 3: field 'number' must be an integer"),
    "number zero": (dump(**{"3.number": 0}), "record 3 (number 0): field 'number' must be positive"),
    "number negative": (dump(**{"3.number": -2}), "record 3 (number -2): field 'number' must be positive"),
    "repeated number": (dump(**{"7.number": 2}), "record 7 (number 2): number 2 repeats record 1"),
    "empty title": (dump(**{"5.title": ""}), "record 5 (number 6): field 'title' is empty"),
    "title not a string": (dump(**{"5.title": 12}), "record 5 (number 6): field 'title' must be a string"),
    "empty url": (dump(**{"9.url": ""}), "record 9 (number 10): field 'url' is empty"),
    "body not a string": (dump(**{"9.body": ["x"]}), "record 9 (number 10): field 'body' must be a string"),
    "state missing": (dump(**{"9.state": None}), "record 9 (number 10): field 'state' must be a string"),
    "state a number": (dump(**{"9.state": 1}), "record 9 (number 10): field 'state' must be a string, got number"),
    "url a number": (dump(**{"9.url": 1}), "record 9 (number 10): field 'url' must be a string, got number"),
    "labels not an array": (dump(**{"2.labels": "bug"}), "record 2 (number 3): field 'labels' must be an array"),
    "label not an object": (dump(**{"2.labels": ["bug"]}), "record 2 (number 3): labels[0] must be an object"),
    "label name not a string": (
        dump(**{"2.labels": [{"name": 1}]}), "record 2 (number 3): labels[0]: field 'name' must be a string"
    ),
    "createdAt unparseable": (dump(**{"4.createdAt": "yesterday"}), "record 4 (number 5): field 'createdAt'"),
    "updatedAt impossible day": (
        dump(**{"4.updatedAt": "2026-02-30T00:00:00Z"}), "record 4 (number 5): field 'updatedAt'"
    ),
    "closedAt without zone": (dump(**{"4.closedAt": "2026-01-02T00:00:00"}), "record 4 (number 5): field 'closedAt'"),
    "createdAt missing": (dump(**{"4.createdAt": None}), "record 4 (number 5): field 'createdAt' must be a string"),
    "updatedAt a number": (dump(**{"4.updatedAt": 5}), "record 4 (number 5): field 'updatedAt' must be a string"),
    "closedAt a number": (dump(**{"4.closedAt": 5}), "record 4 (number 5): field 'closedAt' must be a string"),
    "label name an object": (
        dump(**{"2.labels": [None, {"name": {"x": 1}}]}), "record 2 (number 3): labels[1]: field 'name' must be a string"
    ),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_dump_exits_2_names_the_record_and_writes_nothing(case: str, tmp_path: Path) -> None:
    content, message = BAD[case]
    raw = tmp_path / "raw.json"
    raw.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    out = tmp_path / "out"
    out.mkdir()
    (out / "public.json").write_text("previous public\n")  # an existing output must survive
    result = run_cli(
        "freeze", raw, "--source", "t", "--db", out / "corpus.duckdb",
        "--public", out / "public.json", "--answers", out / "answers.json", "--report", out / "report.json",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert str(raw) in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["public.json"]
    assert (out / "public.json").read_text() == "previous public\n"


def test_missing_input_file_exits_2(tmp_path: Path) -> None:
    result = run_cli(
        "freeze", tmp_path / "nope.json", "--source", "t",
        "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json",
    )  # fmt: skip
    assert result.returncode == 2
    assert "nope.json: cannot read" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "redactions, message",
    [('"samsung"', "expected a JSON array"), ('["ok", "(unclosed"]', "pattern 2 '(unclosed' is not a valid RE2")],
)
def test_bad_redaction_map_exits_2(tmp_path: Path, redactions: str, message: str) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(dump()))
    (tmp_path / "map.json").write_text(redactions)
    result = run_cli(
        "freeze", raw, "--source", "t", "--redactions", tmp_path / "map.json",
        "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json",
    )  # fmt: skip
    assert result.returncode == 2
    assert message in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.json", "raw.json"]


def test_a_missing_output_directory_is_created_and_a_failure_writes_no_file(tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(dump()))
    outputs = ["--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "no" / "r.json"]
    refused = run_cli("freeze", raw, "--source", "t", "--min-records", "1000", *outputs)
    assert refused.returncode == 2
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["raw.json"]  # (nor "no")
    result = run_cli("freeze", raw, "--source", "t", *outputs)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "no" / "r.json").is_file()


def test_minimum_is_a_parameter(tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(dump(3)))
    result = run_cli(
        "freeze", raw, "--source", "t", "--min-records", "3",
        "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("changes", "source"),
    [
        ({"0.labels": [{"name": "references"}]}, "t"),  # in a label
        ({"1.title": "aggregates"}, "t"),  # in a title
        ({"2.body": "duplicate_targets"}, "t"),  # in a body
        ({}, "scope_contradictions"),  # in the header
    ],
    ids=["label", "title", "body", "source"],
)
def test_failed_leak_check_exits_1_and_writes_nothing(tmp_path: Path, changes: dict, source: str) -> None:
    # A string value equal to an answer field's name puts "name" into the public bytes.
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(dump(**changes)))
    result = run_cli(
        "freeze", raw, "--source", source,
        "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json",
    )  # fmt: skip
    assert result.returncode == 1
    assert "leak checks failed: public_omits_derived_answer_fields" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw.json"]


def test_answers_digest_found_in_the_public_bytes_fails_the_freeze(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The digest cannot be planted for real (it hashes a bundle bound to the public
    # digest), so the scan is made to find it: the leak check must then fail.
    from s8f_duck.corpus import artifacts, freeze
    from s8f_duck.safety.errors import Verdict

    real = artifacts.file_contains
    monkeypatch.setattr(artifacts, "file_contains", lambda path, needles: dict.fromkeys(real(path, needles), True))
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps(dump()))
    out = {name: tmp_path / f"{name}.json" for name in ("p", "a", "r")}
    with pytest.raises(Verdict, match="leak checks failed: answer_digest_absent_from_public"):
        freeze.freeze(raw, out["p"], out["a"], out["r"], "t")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw.json"]
