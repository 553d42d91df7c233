"""A public corpus laid out as freeze writes it is read in two parts (the document with
its records emptied, then the records array, record by record); any other layout is
read whole. Both readings must load the same tables and report the same problems."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, S8F_PUBLIC, needs_s8f, run_cli

from s8f_duck.pipeline import steps
from s8f_duck.reading import load
from s8f_duck.reading.gojson import dumps
from s8f_duck.safety.errors import UnusableInput

RECORD = {"id": "issue-7", "split": "test", "number": 7, "title": "t", "body": "", "created_at": "2026-01-01T00:00:00Z",
          "updated_at": "2026-01-01T00:00:00Z", "url": "u", "state": "OPEN", "labels": None, "closed_at": None,
          "title_sha256": "x", "body_sha256": "y"}  # fmt: skip


def corpus(*records: dict[str, Any], **header: Any) -> dict[str, Any]:
    return {"schema": "fak-microcontext-corpus/1", "source": "s", "frozen_at": "2026-01-01T00:00:00Z", **header,
            "records": list(records)}  # fmt: skip


def loaded(path: Path, split: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[tuple]]:
    """The header and the raw_issues rows of a public corpus, read in two parts or whole."""
    used: list[bool] = []
    real = load._read_split

    def spy(con: Any, p: Path, *args: Any) -> bool:
        used.append(real(con, p, *args) if split else False)
        return used[-1]

    monkeypatch.setattr(load, "_read_split", spy)
    with steps.connect() as con:
        header = load.load_public(con, path)
        issues = con.execute("SELECT * FROM raw_issues ORDER BY number").fetchall()
    assert used == [split]  # the reading asked for is the one used
    return header, issues


@pytest.mark.parametrize("layout", ["canonical", "two records"])
def test_both_readings_load_the_same_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    second = {**RECORD, "id": "issue-8", "number": 8, "labels": ["b", "a"], "body": "line\n\"quoted\" <&>"}
    path = tmp_path / "public.json"
    path.write_text(dumps(corpus(RECORD, second) if layout == "two records" else corpus(RECORD)))
    assert loaded(path, True, monkeypatch) == loaded(path, False, monkeypatch)


@needs_s8f
def test_both_readings_load_the_same_s8f_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    split = loaded(S8F_PUBLIC, True, monkeypatch)
    assert split == loaded(S8F_PUBLIC, False, monkeypatch)
    assert split[0]["records"] == len(split[1]) == 1000


def test_demo_corpus_is_read_in_two_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = REPO / "experiments" / "demo" / "gh-issues-demo.json"
    out = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    result = run_cli("freeze", raw, "--source", "demo", "--public", out["public"], "--answers", out["answers"],
                     "--report", out["report"])  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert loaded(out["public"], True, monkeypatch)[0]["records"] == 64


@pytest.mark.parametrize(
    "text",
    [
        # records not last
        '{\n  "schema": "fak-microcontext-corpus/1",\n  "records": [\n    RECORD\n  ],\n  "source": "s",\n'
        '  "frozen_at": "2026-01-01T00:00:00Z"\n}\n',
    ],
    ids=["records not last"],
)
def test_other_shapes_load_alike(tmp_path: Path, text: str) -> None:
    record = dumps(RECORD).strip()
    path = tmp_path / "public.json"
    path.write_text(text.replace("RECORD", record))
    with steps.connect() as con:
        header = load.load_public(con, path)
        (title,) = con.execute("SELECT title FROM raw_issues").fetchall()[0]
    assert header["records"] == 1 and header["source"] == "s"
    assert title == "t"
    # records not last still splits
    con = steps.connect()
    steps.run_steps(con, ["macros"])
    split = load._read_split(con, path, "public", "records", "public_records", 2, load.PUBLIC_STEPS[1:3])
    assert split == text.startswith('{\n  "schema": "fak-microcontext-corpus/1",\n  "records"')


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "schema": "fak-microcontext-corpus/1",\n  "source": "s",\n  "frozen_at": "2026-01-01T00:00:00Z",\n'
        '  "records": [\n    RECORD_TWICE\n  ]\n}\n',
        '{\n  "schema": "fak-microcontext-corpus/1",\n  "source": "s",\n  "records": [1],\n'
        '  "frozen_at": "2026-01-01T00:00:00Z",\n  "records": [\n    RECORD\n  ]\n}\n',
    ],
    ids=["a record's key twice", "records twice"],
)
def test_a_repeated_field_is_refused(tmp_path: Path, text: str) -> None:
    """Go decodes a repeated field into what the first one built: refused (docs/format.md §1)."""
    record = dumps(RECORD).strip()
    path = tmp_path / "public.json"
    path.write_text(text.replace("RECORD_TWICE", record[:-1] + ',"title": "last"}').replace("RECORD", record))
    with steps.connect() as con, pytest.raises(UnusableInput, match="repeats the field"):
        load.load_public(con, path)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"number": "7"}, "records[0]: field 'number' must be a positive integer"),
        ({"title": 5}, "records[0] (number 7): field 'title' must be a string, got number"),
        ({"labels": [1]}, "records[0] (number 7): field 'labels' must be null or an array of strings"),
    ],
)
def test_problems_are_named_in_a_canonical_corpus(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    (tmp_path / "public.json").write_text(dumps(corpus({**RECORD, **change})))
    result = run_cli("baseline", "--public", tmp_path / "public.json", "--output", tmp_path / "s.json")
    assert result.returncode == 2
    assert message in result.stderr


def test_a_record_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    (tmp_path / "public.json").write_text(dumps(corpus(RECORD, 7)))  # type: ignore[arg-type]
    result = run_cli("baseline", "--public", tmp_path / "public.json", "--output", tmp_path / "s.json")
    assert result.returncode == 2
    assert "records[1]: expected an object, got number" in result.stderr
