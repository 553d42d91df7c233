"""s8f_duck.reading.gojson: JSON read and written as Go's encoding/json does (docs/format.md §1, §6)."""

from __future__ import annotations

from typing import Any

import pytest

from s8f_duck.reading.gojson import JSONInputError, dumps, encode_string, loads


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", '""'),
        ("plain text", '"plain text"'),
        ('"', r'"\""'),
        ("\\", r'"\\"'),
        ("\n", r'"\n"'),
        ("\r", r'"\r"'),
        ("\t", r'"\t"'),
        ("\b", r'"\b"'),
        ("\f", r'"\f"'),
        ("\x00", r'"\u0000"'),
        ("\x01", r'"\u0001"'),
        ("\x0b", r'"\u000b"'),
        ("\x1b", r'"\u001b"'),
        ("\x1f", r'"\u001f"'),
        ("<", r'"\u003c"'),
        (">", r'"\u003e"'),
        ("&", r'"\u0026"'),
        ("\u2028", r'"\u2028"'),
        ("\u2029", r'"\u2029"'),
        ("/", '"/"'),
        ("\x7f", '"\x7f"'),
        ("é", '"é"'),
        ("🎉", '"🎉"'),
        ("ſ", '"ſ"'),
        ("\ufffd", '"\ufffd"'),
        ("\u00a0", '"\u00a0"'),
        ('<a href="x">&amp;</a>', r'"\u003ca href=\"x\"\u003e\u0026amp;\u003c/a\u003e"'),
        ("a\u2028b\x01c\x7fé", '"a\\u2028b\\u0001c\x7fé"'),
    ],
)
def test_encode_string(text: str, expected: str) -> None:
    assert encode_string(text) == expected


def test_dumps_is_go_marshal_indent_layout() -> None:
    value = {
        "b": 1,
        "a": [1, "x"],
        "empty_list": [],
        "empty_map": {},
        "missing": None,
        "nested": [[], [2, [3]], {"k": "v"}],
        "flag": True,
        "negative": -7,
    }
    assert dumps(value) == (
        "{\n"
        '  "b": 1,\n'
        '  "a": [\n'
        "    1,\n"
        '    "x"\n'
        "  ],\n"
        '  "empty_list": [],\n'
        '  "empty_map": {},\n'
        '  "missing": null,\n'
        '  "nested": [\n'
        "    [],\n"
        "    [\n"
        "      2,\n"
        "      [\n"
        "        3\n"
        "      ]\n"
        "    ],\n"
        "    {\n"
        '      "k": "v"\n'
        "    }\n"
        "  ],\n"
        '  "flag": true,\n'
        '  "negative": -7\n'
        "}\n"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([], "[]\n"),
        ({}, "{}\n"),
        (None, "null\n"),
        ("<&>", '"\\u003c\\u0026\\u003e"\n'),
        (["\x01\u2029é"], '[\n  "\\u0001\\u2029é"\n]\n'),
        ({"<k>": "v"}, '{\n  "\\u003ck\\u003e": "v"\n}\n'),
        ({"z": 1, "a": 2}, '{\n  "z": 1,\n  "a": 2\n}\n'),
    ],
)
def test_dumps_small_values(value: Any, expected: str) -> None:
    assert dumps(value) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'"plain"', "plain"),
        (rb'"\ud800"', "\ufffd"),
        (rb'"\udfff"', "\ufffd"),
        (rb'"a\ud800b"', "a\ufffdb"),
        (rb'"\ud83d\ude00"', "😀"),
        (rb'"\ud83d\ud83d"', "\ufffd\ufffd"),
        (rb'"\ude00\ud83d"', "\ufffd\ufffd"),
        (rb'"\ud83d\u0041"', "\ufffdA"),
        (b'"a\xffb"', "a\ufffdb"),
        (b'"\xe2\x82A"', "\ufffd\ufffdA"),
        (b'"\xed\xa0\x80"', "\ufffd\ufffd\ufffd"),
        (b'"\xc3\xa9\xf0\x9f\x8e\x89"', "é🎉"),
    ],
)
def test_loads_strings_with_go_replacement(data: bytes, expected: str) -> None:
    assert loads(data) == expected


def test_loads_replaces_inside_nested_values_and_keys() -> None:
    assert loads(b'{"k\\udfff": ["\xff", {"x": "\\ud800"}], "n": 1}') == {
        "k\ufffd": ["\ufffd", {"x": "\ufffd"}],
        "n": 1,
    }


@pytest.mark.parametrize("data", [b"NaN", b"Infinity", b"-Infinity", b"[1, NaN]", b'{"x": Infinity}'])
def test_loads_rejects_non_finite_numbers(data: bytes) -> None:
    with pytest.raises(JSONInputError):
        loads(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   ",
        b"{",
        b"[1,]",
        b"{'a': 1}",
        b"[] []",
        b"tru",
        b"nan",
        b'"a\x01b"',
        b"\xef\xbb\xbf[]",
        b'"\\x41"',
    ],
)
def test_loads_rejects_non_json(data: bytes) -> None:
    with pytest.raises(JSONInputError):
        loads(data)
