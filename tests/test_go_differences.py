"""The last differences from the original tool (its Go 1.26 decoding and rules), each with
an input of its own and in every command that reads that kind of file: a repeated field is
refused, a missing aggregate is not an empty one, the Kelvin sign is a letter before `#`,
frozen_at never goes before Go's zero time, and a gh record with REST-named keys is gh's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import issue, run_cli, write_json

KELVIN, LONG_S = "\u212a", "\u017f"


def dump(n: int = 60, **first: Any) -> list[dict[str, Any]]:
    records = [issue(k) for k in range(1, n + 1)]
    records[0].update(first)
    return records


def freeze(tmp_path: Path, raw: Path | str, *extra: str) -> tuple[Any, dict[str, Path]]:
    out = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    result = run_cli("freeze", raw, "--public", out["public"], "--answers", out["answers"], "--report", out["report"],
                     "--source", "test", "--min-records", "1", *extra)  # fmt: skip
    return result, out


def with_first_record(records: list[dict[str, Any]], replace: str, by: str) -> str:
    """The dump's JSON with text in its first record replaced (to write repeated keys)."""
    text = json.dumps(records, ensure_ascii=False)
    first = json.dumps(records[0], ensure_ascii=False)
    assert replace in first
    return text.replace(first, first.replace(replace, by, 1), 1)


# 1. A field given twice, under any spelling Go matches, in a raw dump: refused (exit 2,
# naming the record and the field), whatever the repeat's value.
RAW_REPEATS = {
    "title twice": ('"title": "Issue 1"', '"title": "Issue 1", "title": "t1"', "field 'title'"),
    "title of the wrong type first": ('"title": "Issue 1"', '"title": 5, "title": "t1"', "field 'title'"),
    "labels, then labelſ null": ('"labels": []', f'"labels": [{{"name": "a"}}], "label{LONG_S}": null', "field 'labels'"),
    "a label's name twice": ('"labels": []', '"labels": [{"name": "a", "Name": "b"}]', "field 'labels[0].name'"),
    "createdAt invalid first": ('"createdAt": "2026-01-01T00:00:00Z"',
                                '"createdAt": "x", "createdAt": "2026-01-01T00:00:00Z"', "field 'createdAt'"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(RAW_REPEATS))
def test_a_repeated_field_in_a_raw_dump_is_refused(tmp_path: Path, case: str) -> None:
    replace, by, field = RAW_REPEATS[case]
    raw = tmp_path / "raw.json"
    raw.write_text(with_first_record(dump(), replace, by), encoding="utf-8")
    result, out = freeze(tmp_path, raw)
    assert result.returncode == 2, result.stderr
    assert f"record 0, {field}" in result.stderr and "repeats the field" in result.stderr, result.stderr
    assert not out["public"].exists()


def frozen(tmp_path: Path, records: list[dict[str, Any]]) -> dict[str, Path]:
    raw = write_json(tmp_path / "raw.json", records)
    result, out = freeze(tmp_path, raw)
    assert result.returncode == 0, result.stderr
    return out


def submission_text(answers_path: Path) -> str:
    bundle = json.loads(answers_path.read_text(encoding="utf-8"))
    return json.dumps({**bundle, "schema": "fak-microcontext-submission/1"}, ensure_ascii=False)


SUBMISSION_REPEATS = {
    "an answer's references twice": ('"references": []', '"references": ["7"], "references": []'),
    "answers twice": ('"answers": [', '"answers": [], "answers": ['),
    "state_counts twice": ('"state_counts": {', '"state_counts": {"X": 1}, "state_counts": {'),
    "aggregates twice": ('"aggregates": {', '"aggregates": {}, "aggregates": {'),
    "labels, then labelſ null in an answer": ('"labels": []', f'"labels": ["a"], "label{LONG_S}": null'),
}  # fmt: skip


@pytest.mark.parametrize("case", list(SUBMISSION_REPEATS))
def test_a_repeated_field_in_a_submission_is_refused(tmp_path: Path, case: str) -> None:
    out = frozen(tmp_path, dump())
    replace, by = SUBMISSION_REPEATS[case]
    text = submission_text(out["answers"])
    assert replace in text
    submission = tmp_path / "submission.json"
    submission.write_text(text.replace(replace, by, 1), encoding="utf-8")
    result = run_cli("grade", "--answers", out["answers"], "--submission", submission)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "repeats the field" in result.stderr, result.stderr


def test_a_repeated_field_in_a_public_corpus_is_refused_by_verify_and_baseline(tmp_path: Path) -> None:
    out = frozen(tmp_path, dump())
    text = out["public"].read_text(encoding="utf-8")
    out["public"].write_text(text.replace('"title": "Issue 1",', '"title": "Issue 1", "title": "t1",', 1))
    verified = run_cli("verify", "--public", out["public"], "--answers", out["answers"], "--report", out["report"])
    assert verified.returncode == 2 and "repeats the field 'title'" in verified.stderr, verified.stderr
    baseline = run_cli("baseline", "--public", out["public"], "--output", tmp_path / "sub.json")
    assert baseline.returncode == 2 and "repeats the field 'title'" in baseline.stderr, baseline.stderr


# 2. A missing aggregate map is not an empty one: the original compares their JSON.
def test_a_missing_aggregate_is_not_an_empty_one(tmp_path: Path) -> None:
    out = frozen(tmp_path, dump())  # no record has a label: label_counts is {}
    bundle = json.loads(out["answers"].read_text(encoding="utf-8"))
    assert bundle["aggregates"]["label_counts"] == {}
    grades = {}
    for name, value in (("empty", {}), ("missing", None), ("null", "null")):
        aggregates = dict(bundle["aggregates"])
        if value is None:
            del aggregates["label_counts"]
        else:
            aggregates["label_counts"] = None if value == "null" else value
        path = write_json(tmp_path / f"{name}.json", {**bundle, "schema": "fak-microcontext-submission/1",
                                                       "aggregates": aggregates})  # fmt: skip
        result = run_cli("grade", "--answers", out["answers"], "--submission", path, "--format", "json")
        grades[name] = (result.returncode, json.loads(result.stdout)["aggregate_errors"])
    assert grades == {"empty": (0, 0), "missing": (1, 1), "null": (1, 1)}


# 3. The Kelvin sign before `#`: a letter to Go's (?i) class, so nothing is cited.
def test_the_kelvin_sign_before_a_number_cites_nothing(tmp_path: Path) -> None:
    out = frozen(tmp_path, dump(body=f"{KELVIN}#14 and {LONG_S}#15 and x #16"))
    answers = json.loads(out["answers"].read_text(encoding="utf-8"))["answers"]
    (first,) = [a for a in answers if a["id"] == "issue-1"]
    assert first["references"] == [16]
    verified = run_cli("verify", "--public", out["public"], "--answers", out["answers"], "--report", out["report"])
    assert verified.returncode == 0, verified.stderr


# 4. Before year 1: frozen_at stays Go's zero time.
def test_frozen_at_never_goes_before_go_zero_time(tmp_path: Path) -> None:
    early = "0001-01-01T00:59:59+01:00"  # 23:59:59 of the year 0
    records = [{**r, "createdAt": early, "updatedAt": early} for r in dump()]
    out = frozen(tmp_path, records)
    assert json.loads(out["public"].read_text(encoding="utf-8"))["frozen_at"] == "0001-01-01T00:00:00Z"
    verified = run_cli("verify", "--public", out["public"], "--answers", out["answers"], "--report", out["report"])
    assert verified.returncode == 0, verified.stderr


# 5. A gh record with keys named like REST fields is gh's, wherever it lies in the file.
@pytest.mark.parametrize("at", [0, 1500])
@pytest.mark.parametrize("key", ["html_url", "created_at", "pull_request"])
def test_a_gh_record_with_rest_named_keys_freezes_as_without_them(tmp_path: Path, key: str, at: int) -> None:
    plain = dump(1600)
    extra = [dict(r) for r in plain]
    extra[at][key] = "https://example.com" if key != "pull_request" else {"url": "x"}
    (tmp_path / "plain").mkdir()
    (tmp_path / "extra").mkdir()
    expected = frozen(tmp_path / "plain", plain)
    got = frozen(tmp_path / "extra", extra)
    for name in ("public", "answers"):
        assert got[name].read_bytes() == expected[name].read_bytes()


# 6. Keys with ı (U+0131) or İ (U+0130): Go 1.26 folds a key rune to the smallest of its
# unicode.SimpleFold orbit (ſ -> S, Kelvin -> K), and the orbits of ı and İ hold nothing
# else, so they match no field: `tıtle` is no title, and `TİTLE` beside `title` no repeat.
DOTLESS_I, DOTTED_I = "\u0131", "\u0130"


def test_a_key_with_a_dotless_i_is_no_field_and_the_record_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(with_first_record(dump(), '"title": "Issue 1"', f'"t{DOTLESS_I}tle": "Issue 1"'), encoding="utf-8")
    result, out = freeze(tmp_path, raw)
    assert result.returncode == 2, result.stderr
    assert "record 0" in result.stderr and "field 'title'" in result.stderr, result.stderr
    assert not out["public"].exists()


def test_a_key_with_a_dotted_capital_i_beside_its_field_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    expected = frozen(tmp_path / "plain", dump())
    raw = tmp_path / "raw.json"
    raw.write_text(with_first_record(dump(), '"title": "Issue 1"', f'"title": "Issue 1", "T{DOTTED_I}TLE": "x"'),
                   encoding="utf-8")  # fmt: skip
    result, out = freeze(tmp_path, raw)
    assert result.returncode == 0, result.stderr
    for name in ("public", "answers"):  # the original's bytes: as if the key were not there
        assert out[name].read_bytes() == expected[name].read_bytes()


def grade_json(tmp_path: Path, answers: Path, name: str, text: str) -> tuple[int, str]:
    submission = tmp_path / f"{name}.json"
    submission.write_text(text, encoding="utf-8")
    result = run_cli("grade", "--answers", answers, "--submission", submission, "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, result.stdout


def test_an_answer_keyed_with_a_dotless_i_has_no_id(tmp_path: Path) -> None:
    records = dump(body="see #2")
    out = frozen(tmp_path, records)
    text = submission_text(out["answers"])
    first = '{"id": "issue-1", '
    assert first in text
    plain = grade_json(tmp_path, out["answers"], "plain", text)
    no_id = grade_json(tmp_path, out["answers"], "no_id", text.replace(first, "{", 1))
    dotless = grade_json(tmp_path, out["answers"], "dotless", text.replace(first, f'{{"{DOTLESS_I}d": "issue-1", ', 1))
    beside = grade_json(tmp_path, out["answers"], "beside", text.replace(first, f'{first}"{DOTLESS_I}d": "x", ', 1))
    # the original: "ıd" is ignored, so the answer has no id (a citation error and the
    # record's two facts missed), and "ıd" beside "id" is no repeat (graded as without it)
    assert dotless == no_id and no_id[0] == 1
    grade = json.loads(no_id[1])
    assert (grade["citation_errors"], grade["false_negative_facts"]) == (1, 2)
    assert beside == plain and plain[0] == 0


# 7. A timestamp written with a JSON escape: Go's time.Time.UnmarshalJSON parses the bytes
# between the quotes unescaped, so the original refuses the dump; an escape elsewhere is fine.
@pytest.mark.parametrize("key", ["createdAt", "updatedAt", "closedAt", "createdat"])
def test_a_timestamp_written_with_an_escape_is_refused(tmp_path: Path, key: str) -> None:
    records = dump()
    records[0]["closedAt"] = "2026-07-16T18:11:00Z"
    text = json.dumps(records)
    field = {"createdat": "createdAt"}.get(key, key)
    old = f'"{field}": "{records[0][field]}"'
    new = f'"{key}": "{records[0][field][:-1]}\\u005a"'
    assert old in text
    raw = tmp_path / "raw.json"
    raw.write_text(text.replace(old, new, 1), encoding="utf-8")
    result, out = freeze(tmp_path, raw)
    assert result.returncode == 2, result.stderr
    assert f"record 0, field '{field}': not an RFC 3339 timestamp" in result.stderr, result.stderr
    assert "\\u005a" in result.stderr and not out["public"].exists()


def test_an_escape_in_a_body_beside_timestamps_freezes(tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(with_first_record(dump(), '"body": ""', '"body": "\\u005a"'), encoding="utf-8")
    result, out = freeze(tmp_path, raw)
    assert result.returncode == 0, result.stderr
