"""The SQL JSON writer (go_json in sql/macros/writing.sql) against Go's escaping rules (docs/format.md §6),
as implemented independently by s8f_duck.reading.gojson.encode_string."""

from __future__ import annotations

import random

import duckdb
import pytest

from s8f_duck.pipeline.steps import run_steps
from s8f_duck.reading.gojson import encode_string

CON = duckdb.connect()
run_steps(CON, ["macros"])


def go_json(text: str) -> str:
    return CON.execute("SELECT go_json(?)", [text]).fetchall()[0][0]


@pytest.mark.parametrize(
    "text",
    [
        "".join(chr(i) for i in range(0x80)),
        "é🎉\u2028\u2029<>&/\\\"ſ\ufffd\u00a0\x7f",
        "literal \\u000B and \\u00e9 stay literal",
        "a\u2028b",
        "\x0b\x1f\x01",
        "<script>alert('x') && y</script>",
        "",
    ],
)
def test_go_json_escapes_as_go(text: str) -> None:
    assert go_json(text) == encode_string(text)


def test_go_json_on_random_text() -> None:
    rng = random.Random(8)
    alphabet = [chr(i) for i in range(0x20)] + list('<>&"\\/ abcu0B\u2028\u2029é🎉ſ\x7f')
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        assert go_json(text) == encode_string(text), repr(text)
