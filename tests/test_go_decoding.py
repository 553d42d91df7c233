"""Inputs that DuckDB's JSON reader refuses or reads differently from Go: the loader
decodes them as Go does (docs/format.md §1), and every rule still applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import answer, freeze_dump, issue, record, run_cli


def raw_bytes(records: list[dict[str, Any]], replace: dict[bytes, bytes]) -> bytes:
    data = json.dumps(records, ensure_ascii=False).encode()
    for old, new in replace.items():
        assert old in data
        data = data.replace(old, new)
    return data


def freeze_refused(tmp_path: Path, data: bytes) -> str:
    raw = tmp_path / "raw.json"
    raw.write_bytes(data)
    out = [tmp_path / f"{name}.json" for name in ("public", "answers", "report")]
    result = run_cli("freeze", raw, "--public", out[0], "--answers", out[1], "--report", out[2], "--source", "s",
                     "--min-records", "1")  # fmt: skip
    assert result.returncode == 2 and not out[0].exists(), result.stderr
    return result.stderr


def test_a_repeated_key_is_refused(tmp_path: Path) -> None:
    """Go decodes a repeat into what the first one built: not emulated, refused (docs/format.md §1)."""
    records = [issue(1, "FIRST", "see #2"), issue(2, "two"), issue(3, "three")]
    data = raw_bytes(records, {b'"title": "FIRST"': b'"title": "first #3", "title": "last"'})
    assert "record 0, field 'title': 'title' repeats the field 'title'" in freeze_refused(tmp_path, data)


def test_a_repeated_label_name_is_refused(tmp_path: Path) -> None:
    records = [issue(1, labels=["placeholder"]), issue(2), issue(3)]
    data = raw_bytes(records, {b'{"name": "placeholder"}': b'{"name": "first", "name": "last"}'})
    assert "field 'labels[0].name'" in freeze_refused(tmp_path, data)


def test_invalid_utf8_and_lone_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    records = [issue(1, "A", "BODY1"), issue(2, "B", "BODY2"), issue(3)]
    data = raw_bytes(records, {b"BODY1": b"x\xff\xfey #2", b"BODY2": b"lone \\ud800 and pair \\ud83d\\ude00"})
    art = freeze_dump(tmp_path, data)
    assert record(art, 1)["body"] == "x\ufffd\ufffdy #2"
    assert record(art, 2)["body"] == "lone \ufffd and pair 😀"
    assert answer(art, 1)["references"] == [2]


def test_non_object_records_are_named(tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps([issue(1), "issue 2", issue(3)]))
    result = run_cli("freeze", raw, "--source", "t", "--min-records", "1", "--public", tmp_path / "p.json",
                     "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json")  # fmt: skip
    assert result.returncode == 2
    assert "record 1: expected an object, got string" in result.stderr


def grade_text(tmp_path: Path, answers: Path, text: str) -> dict[str, Any]:
    (tmp_path / "sub.json").write_text(text)
    result = run_cli("grade", "--answers", answers, "--submission", tmp_path / "sub.json", "--output", tmp_path / "g.json")
    assert result.returncode in (0, 1), result.stderr
    return json.loads((tmp_path / "g.json").read_text())


def test_submission_repeated_fields_are_refused_and_repeated_map_keys_keep_the_last(tmp_path: Path) -> None:
    records = [issue(n, f"Issue {n}", state="OPEN") for n in (9, 10)]  # both land in test
    art = freeze_dump(tmp_path, records)
    answers = tmp_path / "answers.json"
    submission = json.dumps({**art["answers"], "schema": "fak-microcontext-submission/1"})
    for repeated in ('"state": "CLOSED", "state": "OPEN"', '"state": "OPEN", "state": "CLOSED"'):
        (tmp_path / "sub.json").write_text(submission.replace('"state": "OPEN"', repeated))
        result = run_cli("grade", "--answers", answers, "--submission", tmp_path / "sub.json")
        assert result.returncode == 2 and "repeats the field 'state'" in result.stderr, result.stderr
    counts = submission.replace('"OPEN": 2', '"OPEN": 7, "OPEN": 2')  # a map's key: the last counts, as in Go
    assert grade_text(tmp_path, answers, counts)["aggregate_errors"] == 0


def test_trailing_data_after_the_document_is_not_json(tmp_path: Path) -> None:
    art = freeze_dump(tmp_path, [issue(9), issue(10)])
    (tmp_path / "sub.json").write_text(json.dumps(art["answers"]) + " {}")
    result = run_cli("grade", "--answers", tmp_path / "answers.json", "--submission", tmp_path / "sub.json",
                     "--output", tmp_path / "g.json")  # fmt: skip
    assert result.returncode == 2 and "not JSON" in result.stderr
