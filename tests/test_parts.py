"""A large JSON array is read on several cores as several files (split.array_parts).
Here every array counts as large, so small dumps go through the same path: the tables
and the problems named must be those of reading the file whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import issue
from test_bad_input import BAD, dump
from test_public_loading import RECORD, corpus

from s8f_duck.pipeline import steps
from s8f_duck.reading import load, split
from s8f_duck.reading.gojson import dumps
from s8f_duck.safety.errors import UnusableInput


@pytest.fixture()
def every_array_is_large(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "PART_MIN_BYTES", 0)


def raw_tables(path: Path) -> list[tuple]:
    with steps.connect() as con:
        load.load_raw(con, path, 1)
        return con.execute("SELECT * FROM raw_issues ORDER BY number").fetchall()


LAYOUTS = {
    "compact": json.dumps,
    "indented": lambda records: json.dumps(records, indent=2),
    "one per line": lambda records: "[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n",
}


@pytest.mark.parametrize("layout", ["indented", "one per line"])
def test_parts_hold_the_elements_in_order(tmp_path: Path, every_array_is_large: None, layout: str) -> None:
    # Label objects inside a record are separated like records: the cuts must fall
    # between records (the least indented separators), so every part is valid.
    records = [issue(n, body='tricky "},{" and "},\\n{" in a string', labels=["a", "b", "c"]) for n in range(1, 8)]
    text = LAYOUTS[layout](records)
    source = tmp_path / "raw.json"
    source.write_text(text)
    (tmp_path / "parts").mkdir()
    parts = split.array_parts(source, 0, source.stat().st_size, tmp_path / "parts", 3)
    assert len(parts) == 3
    assert [r for part in parts for r in json.loads(part.read_bytes())] == records


def test_a_cut_inside_a_string_is_refused_and_the_dump_read_whole(tmp_path: Path, every_array_is_large: None) -> None:
    # The only '},' followed by '{' is inside a string: the parts are not valid JSON.
    records = [issue(1, body="x" * 40 + '},{"number": 99}'), issue(2)]
    source = tmp_path / "raw.json"
    source.write_text(json.dumps(records))
    with steps.connect() as con:
        load.load_raw(con, source, 1)
        assert con.execute("SELECT number FROM raw_issues ORDER BY number").fetchall() == [(1,), (2,)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_parts_load_the_same_raw_issues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    # (compact: a cut may fall between two labels; the parts are refused and read whole)
    records = dump(60)
    for record in records:
        record["labels"] = [{"name": "a"}, {"name": "b"}]
    source = tmp_path / "raw.json"
    source.write_text(LAYOUTS[layout](records))
    whole = raw_tables(source)
    monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
    assert raw_tables(source) == whole


def test_texts_that_read_like_other_json_values_are_strings(tmp_path: Path, every_array_is_large: None) -> None:
    # Read in parts, a title or body comes as text, as DuckDB writes any JSON value out:
    # these strings could be numbers, booleans or arrays, so the dump is read again whole.
    records = dump(60)
    for record, text in zip(records, ["12", "true", "[1, 2]", "{}", "-5", "null", "false", "[x] done", "1. step"]):
        record["title"] = text
        record["body"] = text
    source = tmp_path / "raw.json"
    source.write_text(json.dumps(records, indent=2))
    rows = raw_tables(source)
    assert [(r[1], r[2]) for r in rows[:9]] == [(r["title"], r["body"]) for r in records[:9]]


@pytest.mark.parametrize("case", [c for c in BAD if not isinstance(BAD[c][0], bytes)], ids=str)
def test_parts_name_the_same_problem(tmp_path: Path, every_array_is_large: None, case: str) -> None:
    content, message = BAD[case]
    source = tmp_path / "raw.json"
    source.write_text(json.dumps(content, indent=2))
    with steps.connect() as con, pytest.raises(UnusableInput, match=re.escape(message)):
        load.load_raw(con, source, 50)


def public_tables(path: Path) -> tuple[dict[str, Any], list[tuple]]:
    with steps.connect() as con:
        header = load.load_public(con, path)
        return header, con.execute("SELECT * FROM raw_issues ORDER BY number").fetchall()


def test_public_records_in_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "public.json"
    path.write_text(dumps(corpus(*({**RECORD, "id": f"issue-{n}", "number": n} for n in range(1, 9)))))
    whole = public_tables(path)
    monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
    assert public_tables(path) == whole


def test_public_texts_that_read_like_other_json_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["12", "true", "[1]", "{}", "-5", "null"]
    records = [{**RECORD, "id": f"issue-{n}", "number": n, "title": t, "body": t} for n, t in enumerate(texts, 1)]
    path = tmp_path / "public.json"
    path.write_text(dumps(corpus(*records)))
    whole = public_tables(path)
    monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
    assert public_tables(path) == whole
    assert [(r[1], r[2]) for r in whole[1]] == [(t, t) for t in texts]
    records[3]["body"] = {}
    path.write_text(dumps(corpus(*records)))
    with steps.connect() as con, pytest.raises(UnusableInput, match=r"records\[3\] \(number 4\): field 'body' must be a string, got object"):
        load.load_public(con, path)


def test_public_problem_in_a_later_part_is_named(tmp_path: Path, every_array_is_large: None) -> None:
    records = [{**RECORD, "id": f"issue-{n}", "number": n} for n in range(1, 9)]
    records[6]["title"] = 5
    path = tmp_path / "public.json"
    path.write_text(dumps(corpus(*records)))
    with steps.connect() as con, pytest.raises(UnusableInput, match=r"records\[6\] \(number 7\): field 'title'"):
        load.load_public(con, path)


def test_public_repeated_number_in_parts_is_named(tmp_path: Path, every_array_is_large: None) -> None:
    records = [{**RECORD, "id": f"issue-{n}", "number": n} for n in range(1, 9)]
    records[6]["number"] = 2
    path = tmp_path / "public.json"
    path.write_text(dumps(corpus(*records)))
    message = r"records\[6\] \(number 2\): number 2 appears twice"
    with steps.connect() as con, pytest.raises(UnusableInput, match=message):
        load.load_public(con, path)


@pytest.mark.parametrize("large", [False, True], ids=["one part", "parts"])
def test_public_null_record_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large: bool) -> None:
    # DuckDB reads a null element as a row of nulls, like {}; the problems it causes send
    # the corpus to the whole reading, which tells the two apart.
    if large:
        monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
    path = tmp_path / "public.json"
    path.write_text(dumps(corpus(RECORD, None, {**RECORD, "id": "issue-8", "number": 8})))  # type: ignore[arg-type]
    with steps.connect() as con, pytest.raises(UnusableInput, match=r"records\[1\]: expected an object, got null"):
        load.load_public(con, path)
