"""Every input is strict JSON as Go's encoding/json reads it: what DuckDB's
reader would also take (a byte-order mark, NaN, Infinity, trailing commas, other
whitespace, any depth) is refused by freeze, grade and verify with exit 2 and one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import freeze_dump, issue, run_cli, write_json

from s8f_duck.reading import strictness
from s8f_duck.reading.gojson import JSONInputError, loads, syntax_problem


def one_line_refusal(result, *needles: str) -> None:  # type: ignore[no-untyped-def]
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def dump_bytes(replace: dict[bytes, bytes] | None = None, prefix: bytes = b"") -> bytes:
    records = [issue(1, "A", "BODY1"), issue(2, "B", "see #1"), issue(3)]
    data = json.dumps(records, indent=2).encode()
    for old, new in (replace or {}).items():
        assert old in data
        data = data.replace(old, new, 1)
    return prefix + data


def freeze_raw(tmp_path: Path, data: bytes):  # type: ignore[no-untyped-def]
    raw = tmp_path / "raw.json"
    raw.write_bytes(data)
    outputs = {name: tmp_path / f"out-{name}.json" for name in ("public", "answers", "report")}
    result = run_cli("freeze", raw, "--source", "t", "--min-records", "1", "--public", outputs["public"],
                     "--answers", outputs["answers"], "--report", outputs["report"])  # fmt: skip
    return result, outputs


NOT_GO_JSON = {
    # name: (raw dump bytes, what the message says)
    "NaN as a body": (dump_bytes({b'"BODY1"': b"NaN"}), "record 0, field 'body': not JSON: NaN and Infinity"),
    "nan in a key Go ignores": (dump_bytes({b'"number": 2,': b'"number": 2, "extra": nan,'}),
                                "record 1, field 'extra': not JSON: NaN and Infinity"),  # fmt: skip
    "inf as a number": (dump_bytes({b'"number": 3': b'"number": inf'}), "record 2, field 'number': not JSON: NaN"),
    "-Infinity in a label": (dump_bytes({b'"labels": []': b'"labels": [{"name": -Infinity}]'}),
                             "record 0, field 'labels[0].name': not JSON: NaN"),  # fmt: skip
    "a byte-order mark": (dump_bytes(prefix=b"\xef\xbb\xbf"), "not JSON: a byte-order mark starts the file"),
    "a UTF-16 byte-order mark": (dump_bytes().decode().encode("utf-16"), "not JSON: invalid character"),
    "a trailing comma in an object": (dump_bytes({b'"number": 2,': b'"number": 2, "x": 1,}, {"number": 9,'}),
                                      "not JSON: a trailing comma before '}'"),  # fmt: skip
    "a trailing comma in an array": (dump_bytes({b'"labels": []': b'"labels": [{"name": "a"},]'}),
                                     "record 0, field 'labels[1]': not JSON: a trailing comma before ']'"),  # fmt: skip
    "a vertical tab between records": (dump_bytes({b"},\n  {": b"},\x0b\n  {"}),
                                       "not JSON: invalid character a vertical tab"),  # fmt: skip
    "a form feed before the array": (dump_bytes(prefix=b"\x0c"), "not JSON: invalid character a form feed"),
    "nesting past 10,000": (dump_bytes({b'"number": 2,': b'"number": 2, "x": ' + b"[" * 10001 + b"]" * 10001 + b","}),
                            "record 1, field 'x"),  # fmt: skip
    "nesting 100,000 deep": (dump_bytes({b'"number": 2,': b'"number": 2, "x": ' + b"[" * 100000 + b"]" * 100000 + b","}),
                             "nested deeper than 10000 levels"),  # fmt: skip
    "an empty file": (b"", "not JSON: unexpected end of JSON input"),
}


@pytest.mark.parametrize("name", NOT_GO_JSON)
def test_freeze_refuses_what_go_refuses(tmp_path: Path, name: str) -> None:
    data, message = NOT_GO_JSON[name]
    result, outputs = freeze_raw(tmp_path, data)
    one_line_refusal(result, message, str(tmp_path / "raw.json"))
    assert not any(path.exists() for path in outputs.values())


def test_nesting_of_10000_in_a_key_go_ignores_is_frozen(tmp_path: Path) -> None:
    """Go's limit is 10,000 levels, the top-level array included."""
    deep = b"[" * 9997 + b"]" * 9997  # with the array, the record and x: 10,000 levels
    (tmp_path / "plain").mkdir()
    (tmp_path / "deep").mkdir()
    plain = freeze_dump(tmp_path / "plain", dump_bytes())
    deeper = freeze_dump(tmp_path / "deep", dump_bytes({b'"number": 2,': b'"number": 2, "x": [' + deep + b"],"}))
    assert deeper["public_bytes"] == plain["public_bytes"]
    assert deeper["answers_bytes"] == plain["answers_bytes"]


def test_valid_escapes_and_invalid_utf8_still_read(tmp_path: Path) -> None:
    """Go takes a lone surrogate escape and invalid UTF-8 (as U+FFFD): not refusals."""
    art = freeze_dump(tmp_path, dump_bytes({b'"BODY1"': b'"\\ud800 \xff \\u00e9 NaN Infinity \\"x\\": nan"'}))
    assert art["public"]["records"][0]["body"] == '\ufffd \ufffd é NaN Infinity "x": nan'


@pytest.fixture(scope="module")
def triple(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frozen triple whose records all land in test (9 and 10), for grade and verify."""
    where = tmp_path_factory.mktemp("triple")
    freeze_dump(where, [issue(9, "Nine", state="OPEN", labels=["bug"]), issue(10, "Ten", state="CLOSED")])
    return where


GRADE_INPUTS = {
    "NaN as a count": ('"OPEN": 1', '"OPEN": NaN', "not JSON: NaN and Infinity"),
    "a bare nan as an id": ('"id": "issue-9"', '"id": nan', "answers[0].id: not JSON: NaN and Infinity"),
    "a bare nan as a state": ('"state": "OPEN"', '"state": nan', "answers[0].state: not JSON: NaN"),
    "inf as a label": ('"bug"', "inf", "answers[0].labels[0]: not JSON: NaN"),
    "a trailing comma": ('"bug"', '"bug",', "not JSON: a trailing comma before ']'"),
    "a byte-order mark": ("{", "\ufeff{", "not JSON: a byte-order mark starts the file"),
    "nesting past 10,000": ('"bug"', "[" * 10001 + "]" * 10001, "answers[0].labels[0]"),
}


@pytest.mark.parametrize("name", GRADE_INPUTS)
def test_grade_refuses_what_go_refuses(triple: Path, tmp_path: Path, name: str) -> None:
    old, new, message = GRADE_INPUTS[name]
    submission = json.loads((triple / "answers.json").read_text())
    submission["schema"] = "fak-microcontext-submission/1"
    text = json.dumps(submission, indent=2)
    assert old in text
    (tmp_path / "sub.json").write_text(text.replace(old, new, 1))
    result = run_cli("grade", "--answers", triple / "answers.json", "--submission", tmp_path / "sub.json",
                     "--output", tmp_path / "g.json")  # fmt: skip
    one_line_refusal(result, message, "sub.json")
    assert not (tmp_path / "g.json").exists()


@pytest.mark.parametrize(
    "prefix, old, new, message",
    [
        (b"\xef\xbb\xbf", b"", b"", "byte-order mark"),
        (b"", b'"Nine"', b"NaN", "records[0].title: not JSON: NaN and Infinity"),
        (b"", b'"split": "test"', b'"split": "test", "x": nan', "records[0].x: not JSON: NaN"),
        (b"", b'"number": 10', b'"number": Infinity', "records[1].number: not JSON: NaN"),
        (b"", b'"number": 10', b'"number": inf', "records[1].number: not JSON: NaN"),
        (b"", b'"labels": null', b'"labels": null, "x": ' + b"[" * 10001 + b"]" * 10001, "nested deeper than 10000"),
    ],
)
def test_verify_refuses_a_public_corpus_go_refuses(triple: Path, tmp_path: Path, prefix: bytes, old: bytes,
                                                   new: bytes, message: str) -> None:  # fmt: skip
    data = (triple / "public.json").read_bytes()
    assert old in data
    (tmp_path / "public.json").write_bytes(prefix + data.replace(old, new, 1))
    result = run_cli("verify", "--public", tmp_path / "public.json", "--answers", triple / "answers.json",
                     "--report", triple / "report.json")  # fmt: skip
    one_line_refusal(result, message)


@pytest.mark.parametrize("which, old, new", [("answers", b'"OPEN": 1', b'"OPEN": nan'), ("report", b'"records": 2', b'"records": NaN')])
def test_verify_refuses_a_bundle_or_report_go_refuses(triple: Path, tmp_path: Path, which: str, old: bytes,
                                                      new: bytes) -> None:  # fmt: skip
    paths = {name: triple / f"{name}.json" for name in ("public", "answers", "report")}
    data = paths[which].read_bytes()
    assert old in data
    paths[which] = tmp_path / f"{which}.json"
    paths[which].write_bytes(data.replace(old, new, 1))
    result = run_cli("verify", "--public", paths["public"], "--answers", paths["answers"], "--report", paths["report"])
    one_line_refusal(result, "not JSON: NaN and Infinity")


# --- the check itself: in pieces, and token by token where the fast check stops ---


def many_records(count: int, body: str = "") -> list[dict]:  # type: ignore[type-arg]
    return [issue(n, body=body or f"body {n} }},{{ with a separator inside a string") for n in range(1, count + 1)]


@pytest.mark.parametrize("indent", [None, 2])
def test_pieces_find_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: int | None) -> None:
    monkeypatch.setattr(strictness, "PIECE_BYTES", 2048)
    path = tmp_path / "raw.json"
    records = many_records(300)
    path.write_text(json.dumps(records, indent=indent))
    assert strictness.StrictCheck(path).problem() is None
    for bad in (3, 150, 299):
        text = json.dumps(records, indent=indent).replace(f'"number": {bad + 1},', f'"number": {bad + 1}, "x": NaN,')
        path.write_text(text)
        problem = strictness.StrictCheck(path).problem()
        assert problem is not None and problem.path == [bad, "x"], problem


def test_pieces_of_a_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strictness, "PIECE_BYTES", 2048)
    path = tmp_path / "public.json"
    document = {"schema": "s", "source": "x", "records": many_records(200)}
    text = json.dumps(document, indent=2)
    path.write_text(text)
    assert strictness.StrictCheck(path, "records").problem() is None
    path.write_text(text.replace('"number": 120,', '"number": 120,,'))
    problem = strictness.StrictCheck(path, "records").problem()
    assert problem is not None and problem.path == ["records", 119, "number"]
    path.write_text(text.replace('"source": "x"', '"source": NaN'))
    problem = strictness.StrictCheck(path, "records").problem()
    assert problem is not None and problem.path == ["source"]


def test_deep_but_within_go_limit_passes_the_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """msgspec stops at Python's recursion limit; the token scan takes over, then hands back."""
    monkeypatch.setattr(strictness, "PIECE_BYTES", 2048)
    records = many_records(100)
    records[10]["x"] = "DEEP"
    text = json.dumps(records, indent=2).replace('"DEEP"', "[" * 3000 + "]" * 3000)
    path = tmp_path / "raw.json"
    path.write_text(text)
    assert strictness.StrictCheck(path).problem() is None
    path.write_text(text.replace('"number": 91,', '"number": 91, "y": NaN,'))
    problem = strictness.StrictCheck(path).problem()
    assert problem is not None and problem.path == [90, "y"]


@pytest.mark.parametrize(
    "text, ok",
    [
        ('{"a": [1, 2.5e-3, -0, true, false, null, "\\u00e9\\n"]}', True),
        ("[1 2]", False),
        ("[01]", False),
        ("[1.]", False),
        ('{"a" 1}', False),
        ('{"a": 1}}', False),
        ("[\"\\x\"]", False),
        ("[\"a\tb\"]", False),
        ("nul", False),
        ("[1]\n\t\r ", True),
    ],
)
def test_the_token_scan_is_go_syntax(text: str, ok: bool) -> None:
    problem, _ = syntax_problem(text.encode())
    assert (problem is None) == ok, problem
    try:
        loads(text.encode())
        decoded = True
    except JSONInputError:
        decoded = False
    assert decoded == ok


def test_loads_goes_past_python_recursion_limit_up_to_go_limit() -> None:
    assert loads(b"[" * 10000 + b"]" * 10000) is not None
    with pytest.raises(JSONInputError, match="nested deeper than 10000"):
        loads(b"[" * 10001 + b"]" * 10001)


def test_redaction_map_and_report_are_strict(tmp_path: Path) -> None:
    write_json(tmp_path / "raw.json", [issue(1)])
    (tmp_path / "map.json").write_text('["a",]')
    result = run_cli("freeze", tmp_path / "raw.json", "--source", "t", "--min-records", "1", "--redactions",
                     tmp_path / "map.json", "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json",
                     "--report", tmp_path / "r.json")  # fmt: skip
    one_line_refusal(result, "map.json: [1]: not JSON: a trailing comma")
