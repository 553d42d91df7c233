"""An answer bundle or submission laid out as freeze writes it is read in two parts (the
document with its answers emptied, then the answers array, numbered): straight into their
types when the typed check finds nothing to check (sql/bundle/typed/), else as JSON values
that are then checked; any other layout is read whole. Every reading must load the same
tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import S8F_ANSWERS, needs_s8f

from s8f_duck.pipeline import steps
from s8f_duck.reading import load
from s8f_duck.reading.gojson import dumps

TABLES = ("answers", "state_counts", "label_counts", "newest_issue_ids", "most_recently_updated_issue_ids")
READINGS = ("typed", "split", "whole")


def bundle_tables(path: Path, reading: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, list[tuple]]]:
    """The tables one reading loads (the others refused, as when DuckDB refuses the parts)."""
    used: list[str] = []
    real = load._read_split

    def spy(con: Any, p: Path, *args: Any, **options: Any) -> bool:
        kind = "typed" if options.get("items_step") else "split"
        if kind == reading:
            used.append(kind)
            return real(con, p, *args, **options)
        return False

    checked = load._load_checked_answers

    def checking(*args: Any) -> None:
        used.append("checked")
        checked(*args)

    monkeypatch.setattr(load, "_read_split", spy)
    monkeypatch.setattr(load, "_load_checked_answers", checking)
    with steps.connect() as con:
        corpus = load.load_bundle(con, path, "", None)
        tables = {name: con.execute(f"SELECT * FROM {name} ORDER BY ALL").fetchall() for name in TABLES}
    assert used == {"typed": ["typed"], "split": ["checked", "split"], "whole": ["checked"]}[reading]
    return corpus, tables


def submission() -> dict[str, Any]:
    answer = {"id": "issue-1", "split": "test", "state": "OPEN", "labels": ["bug"], "references": [2],
              "duplicate_targets": [], "scope_contradictions": ["conflict"]}  # fmt: skip
    return {
        "schema": "fak-microcontext-submission/1",
        "corpus_sha256": "abc",
        "answers": [answer, None, {**answer, "id": "issue-2", "labels": None}, {**answer, "state": "CLOSED"}],
        "aggregates": {"state_counts": {"OPEN": 1}, "label_counts": {"bug": 2}, "newest_issue_ids": ["issue-2"],
                       "most_recently_updated_issue_ids": ["issue-1"]},  # fmt: skip
    }


@pytest.mark.parametrize("layout", ["canonical", "indent 2"])
def test_both_readings_load_the_same_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    path = tmp_path / "submission.json"
    path.write_text(dumps(submission()) if layout == "canonical" else json.dumps(submission(), indent=2))
    typed, split, whole = (bundle_tables(path, reading, monkeypatch) for reading in READINGS)
    assert typed == split == whole
    assert [row[1] for row in split[1]["answers"]] == ["issue-1", "", "issue-2", "issue-1"]  # null: the zero value


@needs_s8f
def test_both_readings_load_the_same_s8f_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    typed, split, whole = (bundle_tables(S8F_ANSWERS, reading, monkeypatch) for reading in READINGS)
    assert typed == split == whole
    assert len(split[1]["answers"]) == 1000


@needs_s8f
def test_typed_check_in_small_pieces_reads_every_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check decodes the answers array in pieces cut between elements (each read into
    one reused buffer between brackets of its own): in pieces of 2 KB, the S8f bundle
    still passes and loads what the checked reading loads, and a value of the wrong type
    in the last piece, or in the first, is found."""
    from s8f_duck.reading import typed_check

    monkeypatch.setattr(typed_check, "PIECE_BYTES", 2048)
    assert typed_check.TypedCheck(S8F_ANSWERS).passed()
    typed, _, whole = (bundle_tables(S8F_ANSWERS, reading, monkeypatch) for reading in READINGS)
    assert typed == whole
    gold = json.loads(S8F_ANSWERS.read_text(encoding="utf-8"))
    for at in (0, -1):
        bad = json.loads(json.dumps(gold))
        bad["answers"][at]["references"] = ["7"]  # Go refuses a string for an int64
        path = tmp_path / f"bad{at}.json"
        path.write_text(dumps(bad), encoding="utf-8")
        check = typed_check.TypedCheck(path)
        assert check.span is not None and not check.passed()
        fine = tmp_path / f"fine{at}.json"
        fine.write_text(dumps(gold), encoding="utf-8")
        assert typed_check.TypedCheck(fine).passed()


@needs_s8f
def test_typed_checks_pause_the_cycle_collector_and_restore_it(tmp_path: Path) -> None:
    """Checks pause Python's cycle collector while they decode (several at once share the
    pause) and leave it as they found it: on after checks that pass or fail, off if it was."""
    import gc

    from s8f_duck.reading import typed_check

    bad = json.loads(S8F_ANSWERS.read_text(encoding="utf-8"))
    bad["answers"][-1]["labels"] = [7]
    (tmp_path / "bad.json").write_text(dumps(bad), encoding="utf-8")
    seen: list[bool] = []
    decode = typed_check._ANSWERS

    class Watching:
        def decode(self, data: Any) -> Any:
            seen.append(gc.isenabled())
            return decode.decode(data)

    original, typed_check._ANSWERS = typed_check._ANSWERS, Watching()  # type: ignore[assignment]
    try:
        assert gc.isenabled()
        checks = [typed_check.TypedCheck(path) for path in (S8F_ANSWERS, tmp_path / "bad.json", S8F_ANSWERS)]
        assert [check.passed() for check in checks] == [True, False, True]
        assert seen and not any(seen) and gc.isenabled()
        gc.disable()
        try:
            assert typed_check.TypedCheck(S8F_ANSWERS).passed() and not gc.isenabled()
        finally:
            gc.enable()
    finally:
        typed_check._ANSWERS = original


@needs_s8f
def test_typed_check_starts_just_before_the_typed_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check holds Python's lock while it decodes, so it starts only when the
    statements before DuckDB's typed read have run: right before that read, not before."""
    from s8f_duck.reading import typed_check

    order: list[str] = []
    real_steps, real_start = load.run_steps, typed_check.TypedCheck.start

    def steps_logged(con: Any, names: Any, *args: Any, **options: Any) -> Any:
        order.extend(names)
        return real_steps(con, names, *args, **options)

    def start_logged(self: typed_check.TypedCheck) -> None:
        order.append("check")
        real_start(self)

    monkeypatch.setattr(load, "run_steps", steps_logged)
    monkeypatch.setattr(typed_check.TypedCheck, "start", start_logged)
    with steps.connect() as con:
        load.load_bundle(con, S8F_ANSWERS, "", None)
    at = order.index("check")
    assert "bundle/bundle_document" in order[:at] and order[at + 1] == "bundle/typed/bundle_answers"


def test_a_null_list_element_is_read_the_checked_way_as_the_zero_value(tmp_path: Path) -> None:
    """Go reads a null list element as the zero value; the typed read leaves that to the
    checked reading (its check refuses such an element), which gives '' or 0."""
    from s8f_duck.reading import typed_check

    document = submission()
    document["answers"][0] |= {"labels": ["bug", None], "references": [None, 2], "duplicate_targets": [None],
                               "scope_contradictions": [None]}  # fmt: skip
    path = tmp_path / "submission.json"
    path.write_text(dumps(document), encoding="utf-8")
    assert not typed_check.TypedCheck(path).passed()
    with steps.connect() as con:
        load.load_bundle(con, path, "", None)
        first = con.execute(
            'SELECT labels, "references", duplicate_targets, scope_contradictions FROM answers WHERE pos = 0'
        ).fetchall()
    assert first == [(["bug", ""], [0, 2], [0], [""])]


@needs_s8f
def test_a_cut_inside_a_string_only_fails_the_typed_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check cuts at the nearest `},` before a `{`, which may lie inside a string: that
    piece then fails to decode, the check fails, and the checked reading loads the bundle."""
    from s8f_duck.reading import split, typed_check

    gold = json.loads(S8F_ANSWERS.read_text(encoding="utf-8"))
    for answer in gold["answers"]:
        answer["labels"] = ["},{", *answer["labels"]]
    path = tmp_path / "answers.json"
    path.write_bytes(dumps(gold).encode())
    monkeypatch.setattr(typed_check, "PIECE_BYTES", 2048)
    data = path.read_bytes()
    start, end = split.array_member_span(path, "answers")
    with open(path, "rb") as f:
        cuts = split.element_cuts(f, start, end, 2048, nearest=True)
    assert any(data[cut + 1 : cut + 3] == b'{"' for cut in cuts)  # (a cut inside the label)
    assert not typed_check.TypedCheck(path).passed()
    with steps.connect() as con:
        load.load_bundle(con, path, "", None)
        loaded = {name: con.execute(f"SELECT * FROM {name} ORDER BY ALL").fetchall() for name in TABLES}
    _, whole = bundle_tables(path, "whole", monkeypatch)
    assert loaded == whole and len(loaded["answers"]) == 1000
