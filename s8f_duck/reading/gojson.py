"""JSON read and written the way Go's encoding/json does it (docs/format.md §1, §6).

Reading: strict JSON as Go's decoder takes it (no byte-order mark, NaN, Infinity,
trailing comma, whitespace other than space, tab, CR and LF, nor nesting deeper than
10,000); invalid UTF-8 bytes and lone UTF-16 surrogates become U+FFFD, one per byte.
With a schema (the structs the reference decodes into), keys are matched as Go matches
them: exactly, else case-insensitively with Unicode folding, a later key winning.
Writing: `json.MarshalIndent(v, "", "  ")` plus a newline, with Go's HTML-safe escapes.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
import threading
from collections.abc import Sequence
from typing import Any

MAX_DEPTH = 10000  # Go's encoding/json refuses deeper nesting ("exceeded max depth")

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Go escapes these beyond what Python's encoder escapes (HTML safety, JS line ends).
_GO_EXTRA_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def _replace_per_byte(err: UnicodeError) -> tuple[str, int]:
    """Replace one invalid byte at a time, as Go's utf8.DecodeRune does."""
    assert isinstance(err, UnicodeDecodeError)
    return "\ufffd", err.start + 1


codecs.register_error("s8f_go_replace", _replace_per_byte)

Path = Sequence[int | str]


class JSONInputError(ValueError):
    """The bytes are not a JSON document Go would accept (or one this project refuses).

    `path` is where in the document (array indexes and object keys), `where` the line and
    column, when known."""

    def __init__(self, reason: str, path: Path = (), where: str = "", *, syntax: bool = True) -> None:
        self.reason, self.path, self.where, self.syntax = reason, list(path), where, syntax
        place = ", ".join(part for part in (format_path(path) and f"at {format_path(path)}", where) if part)
        super().__init__(f"{'not JSON: ' if syntax else ''}{reason}{f' ({place})' if place else ''}")


def format_path(path: Path) -> str:
    """A place in a document, as `[3].labels[0].name` (the middle of a deep one left out)."""
    if len(path) > 12:
        return f"{format_path(path[:6])}...{format_path(path[-3:])}"
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


# --- the syntax, token by token (used where the fast check in strictness.py failed) ---

_TOKEN = re.compile(
    rb'[ \t\n\r]*+(?:("(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+")'  # 1 string
    rb"|(-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][-+]?[0-9]++)?)"  # 2 number
    rb"|(true|false|null)"  # 3 literal
    rb"|([\[\]{}:,]))"  # 4 punctuation
)
_NON_FINITE = re.compile(rb"[-+]?(?:[nN][aA][nN]|[iI][nN][fF])")
_VALUE, _FIRST_VALUE, _FIRST_KEY, _KEY, _COLON, _AFTER = range(6)  # what the scanner expects next
_LOOKING = {
    _VALUE: "looking for beginning of value",
    _FIRST_VALUE: "looking for beginning of value",
    _FIRST_KEY: "looking for beginning of object key string",
    _KEY: "looking for beginning of object key string",
    _COLON: "after object key",
}


def _line_column(data: bytes | memoryview, offset: int) -> str:
    if offset > 64 << 20:  # (counting lines would copy the prefix)
        return f"byte {offset}"
    prefix = bytes(data[:offset])
    line, column = prefix.count(b"\n") + 1, offset - prefix.rfind(b"\n")
    return f"line {line}, column {column}"


def _character(data: bytes | memoryview, at: int) -> str:
    raw = bytes(data[at : at + 4])
    char = raw.decode("utf-8", errors="s8f_go_replace")[:1]
    return {"\x0b": "a vertical tab", "\x0c": "a form feed", "\ufeff": "a byte-order mark"}.get(char, repr(char))


def syntax_problem(
    data: Any,
    start: int = 0,
    path: Sequence[int | str] = (),
    stop_depth: int = -1,
    resume_at: set[int] | None = None,
    stopped_in: list[int | str] | None = None,
) -> tuple[JSONInputError | None, int]:
    """The first place where `data` (bytes, or an mmap) stops being JSON as Go reads it,
    scanning from `start` (where a value is expected) inside the containers named by
    `path` (empty: a whole document, which must end after its value). With stop_depth >= 0
    the scan stops once the containers are closed back to that many; with resume_at, at a
    comma at one of those offsets between elements of the array that `path` is in (or
    opens), leaving in `stopped_in` the place of the element before that comma. Returns
    (problem or None, where the scan stopped)."""
    stack: list[list[Any]] = [[isinstance(p, int), p] for p in path]  # [is array, index or key]
    array_depth = len(path) if path and isinstance(path[-1], int) else len(path) + 1
    state, after_comma, pos, end = _VALUE, False, start, len(data)
    if start == 0 and bytes(data[:3]) == b"\xef\xbb\xbf":
        return JSONInputError("a byte-order mark starts the file; Go's decoder refuses it", (), "line 1, column 1"), 0
    match = _TOKEN.match
    while True:
        m = match(data, pos)
        if m is None or (state == _AFTER and not stack):
            at = pos
            while at < end and data[at] in b" \t\n\r":
                at += 1
            if at >= end:
                if state == _AFTER and not stack:
                    return None, end
                return JSONInputError("unexpected end of JSON input", _path(stack), _line_column(data, at)), at
            if state == _AFTER and not stack:
                reason = f"invalid character {_character(data, at)} after top-level value"
            elif state in (_VALUE, _FIRST_VALUE) and _NON_FINITE.match(data, at):
                reason = "NaN and Infinity are not JSON"
            elif data[at] == 0x22:  # a string that does not end well
                reason = "invalid string: an unescaped control character, a bad escape, or no closing quote"
            else:
                where = _LOOKING.get(state) or _after(stack)
                reason = f"invalid character {_character(data, at)} {where}"
            return JSONInputError(reason, _path(stack), _line_column(data, at)), at
        kind = m.lastindex
        token = m.group(kind)
        at, pos = m.start(kind), m.end()
        if state == _COLON:
            if token != b":":
                return JSONInputError(f"invalid character {_character(data, at)} after object key", _path(stack),
                                      _line_column(data, at)), at  # fmt: skip
            state = _VALUE
            continue
        if state in (_FIRST_KEY, _KEY):
            if kind == 1:
                stack[-1][1] = json.loads(token.decode("utf-8", errors="s8f_go_replace"))
                state, after_comma = _COLON, False
                continue
            if token == b"}" and state == _FIRST_KEY:
                state = _close(stack)
            elif token == b"}":
                return JSONInputError("a trailing comma before '}'", _path(stack), _line_column(data, at)), at
            else:
                return JSONInputError(f"invalid character {_character(data, at)} {_LOOKING[state]}", _path(stack),
                                      _line_column(data, at)), at  # fmt: skip
        elif state in (_VALUE, _FIRST_VALUE):
            if token == b"]" and state == _FIRST_VALUE:
                state = _close(stack)
            elif token == b"]" and after_comma:
                return JSONInputError("a trailing comma before ']'", _path(stack), _line_column(data, at)), at
            elif kind in (1, 2, 3):
                state = _AFTER
            elif token in (b"[", b"{"):
                if len(stack) >= MAX_DEPTH:
                    return JSONInputError(f"nested deeper than {MAX_DEPTH} levels (Go's limit)", _path(stack),
                                          _line_column(data, at)), at  # fmt: skip
                stack.append([token == b"[", 0 if token == b"[" else None])
                state = _FIRST_VALUE if token == b"[" else _FIRST_KEY
            else:
                return JSONInputError(f"invalid character {_character(data, at)} {_LOOKING[state]}", _path(stack),
                                      _line_column(data, at)), at  # fmt: skip
            after_comma = False
        else:  # _AFTER, inside a container
            is_array = stack[-1][0]
            if token == b",":
                if resume_at and at in resume_at and is_array and len(stack) == array_depth:
                    if stopped_in is not None:
                        stopped_in[:] = _path(stack)
                    return None, at
                if is_array:
                    stack[-1][1] += 1
                state, after_comma = (_VALUE if is_array else _KEY), True
                continue
            if token == (b"]" if is_array else b"}"):
                state = _close(stack)
            else:
                return JSONInputError(f"invalid character {_character(data, at)} {_after(stack)}", _path(stack),
                                      _line_column(data, at)), at  # fmt: skip
        if state == _AFTER and len(stack) == stop_depth:
            return None, pos


def _after(stack: list[list[Any]]) -> str:
    return "after array element" if stack[-1][0] else "after object key:value pair"


def _close(stack: list[list[Any]]) -> int:
    stack.pop()
    return _AFTER


def _path(stack: list[list[Any]]) -> list[int | str]:
    return [label for _, label in stack if label is not None]


# --- decoding ---


def _reject_constant(name: str) -> Any:
    raise JSONInputError("NaN and Infinity are not JSON")


class _Pairs(list):  # type: ignore[type-arg]
    """An object's (key, value) pairs in file order, before Go's key matching."""


def go_fold(key: str) -> str:
    """The form under which Go's decoder matches a key to a struct field (its foldName,
    Go 1.21 on): ASCII letters upper-cased, any other character the smallest of its
    unicode.SimpleFold orbit, so `ſ` folds to `S` and the Kelvin sign to `K`, but `ı` and
    `İ` stay themselves (their orbits hold no other rune) and match no ASCII letter."""
    return "".join(c.upper() if c.isascii() else _fold_rune(c) for c in key)


# Orbits of Go's caseOrbit table that simple case mappings do not link (CaseFolding.txt's
# S entries), and the two letters whose orbit is themselves alone.
_ORBIT_MIN = {"ΐ": "ΐ", "ΰ": "ΰ", "ﬆ": "ﬅ", "İ": "İ", "ı": "ı"}


def _fold_rune(c: str) -> str:
    """Go's foldRune: the smallest rune equivalent to c under simple case folding, found as
    the closure of c under the simple (one-character) lower, upper and title mappings."""
    if c in _ORBIT_MIN:
        return _ORBIT_MIN[c]
    orbit, todo = {c}, [c]
    while todo and len(orbit) < 8:  # (an orbit has at most four runes)
        r = todo.pop()
        for mapped in (r.lower(), r.upper(), r.title()):
            if len(mapped) == 1 and mapped not in orbit and mapped not in _ORBIT_MIN:
                orbit.add(mapped)
                todo.append(mapped)
    return min(orbit)


# A schema: the Go value a document is decoded into. STRUCT fields by name; LIST of one
# schema, a field given twice (under any spelling Go matches) refused; MAP (keys kept as they
# are, the last repeated key winning, as Go's map decoding does); ANY (objects become dicts,
# likewise); TIME, a time.Time: decoded as ANY, but Go's UnmarshalJSON parses the bytes
# between the quotes as they are, so a string written with an escape is no timestamp
# (strictness.StrictCheck refuses it, seeing the raw bytes).
ANY: Any = None
MAP = "map"
TIME = "time"


def struct(**fields: Any) -> dict[str, Any]:
    return {"fields": fields, "folded": {go_fold(name): name for name in fields}}


def list_of(element: Any) -> list[Any]:
    return [element]


def _convert(value: Any, schema: Any, path: list[int | str]) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list) and not isinstance(value, _Pairs):
        element = schema[0] if isinstance(schema, list) else ANY
        return [_convert(v, element, [*path, i]) for i, v in enumerate(value)]
    if not isinstance(value, _Pairs):
        return value
    if not isinstance(schema, dict):  # a map, or any object: keys as they are, the last one winning
        return {_LONE_SURROGATE.sub("\ufffd", k): _convert(v, ANY, [*path, k]) for k, v in value}
    fields, folded, out, given = schema["fields"], schema["folded"], {}, {}
    for key, item in value:
        name = key if key in fields else folded.get(go_fold(_LONE_SURROGATE.sub("\ufffd", key)))
        if name is None:
            continue  # a key Go ignores
        if name in given:  # Go decodes a repeat into what the first one built (merging): refused
            earlier = "" if given[name] == key else f" (given as {given[name]!r} before)"
            raise JSONInputError(f"{key!r} repeats the field {name!r}{earlier}: a repeated field is refused",
                                 [*path, name], syntax=False)  # fmt: skip
        given[name] = key
        out[name] = _convert(item, fields[name], [*path, name])
    return out


_RAISED_LIMIT = threading.Lock()  # one deep document at a time goes past Python's recursion limit


def _decode(text: str, schema: Any) -> Any:
    return _convert(json.loads(text, object_pairs_hook=_Pairs, parse_constant=_reject_constant), schema, [])


def loads(data: bytes | str, schema: Any = ANY) -> Any:
    """Decode JSON as Go does; raise JSONInputError where Go would refuse the bytes (or
    where this project refuses what Go would read by its struct types)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    text = data if isinstance(data, str) else data.decode("utf-8", errors="s8f_go_replace")
    try:
        if text.startswith("\ufeff"):
            raise json.JSONDecodeError("byte-order mark", text, 0)
        return _decode(text, schema)
    except (json.JSONDecodeError, RecursionError) as exc:
        # the exact syntax, token by token: where Go stops, or that it goes on (deeper
        # than Python's recursion limit but within Go's nesting limit)
        problem, _ = syntax_problem(raw)
        if problem is not None:
            raise problem from None
        if not isinstance(exc, RecursionError):
            raise JSONInputError(str(exc)) from None
    except JSONInputError as exc:
        problem, _ = syntax_problem(raw) if exc.syntax else (None, 0)  # NaN or Infinity: say where
        raise (problem or exc) from None
    with _RAISED_LIMIT:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 3 * MAX_DEPTH + 1000))
        try:
            return _decode(text, schema)
        finally:
            sys.setrecursionlimit(limit)


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
    """A JSON string literal exactly as Go writes it; a lone surrogate (an invalid byte of
    a command-line argument, as Python decodes it) is written as Go writes an invalid
    UTF-8 byte: `\\ufffd`."""
    encoded = _go_escapes(json.encoder.encode_basestring(text))  # type: ignore[attr-defined]
    return _LONE_SURROGATE.sub(r"\\ufffd", encoded) if _LONE_SURROGATE.search(encoded) else encoded


def dumps(value: Any) -> str:
    """`json.MarshalIndent(value, "", "  ")` + newline. Dict keys keep their order."""
    return _go_escapes(json.dumps(value, ensure_ascii=False, indent=2)) + "\n"


def _go_escapes(text: str) -> str:
    # str.replace scans at memchr speed; str.translate would visit every character in Python.
    for char, escape in _GO_EXTRA_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text
