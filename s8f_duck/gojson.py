"""JSON read and written the way Go's encoding/json does it (SPEC §1, §6).

Reading: invalid UTF-8 bytes and lone UTF-16 surrogates become U+FFFD, one per byte,
as Go's decoder does. Writing: `json.MarshalIndent(v, "", "  ")` plus a newline, with
Go's HTML-safe escapes.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Go escapes these beyond what Python's encoder escapes (HTML safety, JS line ends).
_GO_EXTRA_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def _replace_per_byte(err: UnicodeError) -> tuple[str, int]:
    """Replace one invalid byte at a time, as Go's utf8.DecodeRune does."""
    assert isinstance(err, UnicodeDecodeError)
    return "\ufffd", err.start + 1


codecs.register_error("s8f_go_replace", _replace_per_byte)


class JSONInputError(ValueError):
    """The bytes are not a JSON document Go would accept."""


def _reject_constant(name: str) -> Any:
    raise JSONInputError(f"invalid JSON value {name}")


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value


def loads(data: bytes) -> Any:
    """Decode JSON bytes with Go's replacement rules; raise JSONInputError if invalid."""
    text = data.decode("utf-8", errors="s8f_go_replace")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"not JSON: {exc}") from None
    return _clean(value)


def type_name(value: Any) -> str:
    """The JSON type of a decoded value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def encode_string(text: str) -> str:
    """A JSON string literal exactly as Go writes it."""
    return _go_escapes(json.encoder.encode_basestring(text))  # type: ignore[attr-defined]


def dumps(value: Any) -> str:
    """`json.MarshalIndent(value, "", "  ")` + newline. Dict keys keep their order."""
    return _go_escapes(json.dumps(value, ensure_ascii=False, indent=2)) + "\n"


def _go_escapes(text: str) -> str:
    # str.replace scans at memchr speed; str.translate would visit every character in Python.
    for char, escape in _GO_EXTRA_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text
