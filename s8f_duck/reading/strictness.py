"""Whether an input file is JSON as Go's decoder reads it, checked beside DuckDB's reader.

DuckDB's reader (yyjson) also takes what Go refuses: a byte-order mark, NaN and Infinity
(in any letter case), trailing commas, vertical tabs and form feeds between array
elements, any nesting depth. msgspec's decoder, which is strict, checks the bytes at C
speed; where it refuses something (or nests deeper than Python's recursion limit lets it
go), gojson.syntax_problem reads on from there token by token (the exact rule, which also
names the place) until it is past the trouble. A large array is checked in pieces cut
between elements, so that at most PIECE_BYTES of the file is in memory at once: a piece
that checks proves that its cut lies between elements of the array (a cut inside a string
or a nested value leaves the piece unbalanced).

The check runs on a thread of its own while DuckDB reads the file (msgspec holds
Python's lock, DuckDB lets go of it), so it costs a core's share of the read.
stream_problem checks a file of values one after another (a REST dump's pages or JSON
Lines) the same way, when rest_batches.py, which decodes all of it with msgspec, did not.
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from s8f_duck.reading import gojson
from s8f_duck.reading.split import array_member_span, element_cuts

PIECE_BYTES = 32 << 20

_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_KEYED_ELEMENTS = msgspec.json.Decoder(list[dict[str, msgspec.Raw] | None])
# Bytes without which no key can fold to a field name but by ASCII case (which DuckDB's
# reader matches itself): ſ and the Kelvin sign in UTF-8, and an escape (ı and İ fold to
# no ASCII letter in Go's decoder).
_FOLD_BYTES = (b"\xc5\xbf", b"\xe2\x84\xaa", b"\\u")
_KEYED = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder(msgspec.Raw)


class StrictCheck:
    """Check a file on a thread of its own; `problem()` waits for the verdict.

    array_key names the top-level member holding the document's big array (None: the
    file is the array). With element_fields (and top_fields), the keys of the array's
    objects (and of the document) are checked too: `folded_keys` is set when one of them
    is not a field's exact name but one Go's case-insensitive matching takes for it."""

    def __init__(
        self,
        path: Path,
        array_key: str | None = None,
        element_fields: dict[str, Any] | None = None,
        top_fields: dict[str, Any] | None = None,
    ) -> None:
        self.path, self.array_key = path, array_key
        self.element_fields, self.top_fields = element_fields, top_fields
        self.folded_keys = False
        self._escaped_time: gojson.JSONInputError | None = None  # the first timestamp written with an escape
        self._problem: gojson.JSONInputError | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="s8f-duck-strict-json", daemon=True)
        self._thread.start()

    def problem(self) -> gojson.JSONInputError | None:
        """Where the file stops being JSON as Go reads it (None: it is such JSON)."""
        self._thread.join()
        if self._failure is not None:
            raise self._failure
        return self._problem

    def _run(self) -> None:
        try:
            self._problem = self._check() or self._escaped_time
        except OSError:  # unreadable: the loader names it
            self._problem = None
        except BaseException as exc:  # noqa: BLE001  # handed to the caller's thread
            self._failure = exc

    def _check(self) -> gojson.JSONInputError | None:
        size = self.path.stat().st_size
        if size == 0:
            return gojson.JSONInputError("unexpected end of JSON input", (), "line 1, column 1")
        with open(self.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if self.array_key is None:
                return self._array(data, 0, size, [])
            span = array_member_span(self.path, self.array_key)
            if span is None:  # another layout: the whole document at once
                return self._document(data)
            start, end = span
            problem = self._document(b"".join((data[: start + 1], b"]", data[end:])))  # the big array emptied
            return problem or self._array(data, start, end, [self.array_key])

    def _document(self, data: Any) -> gojson.JSONInputError | None:
        """Check one whole document (a small one, or the document around its big array)."""
        try:
            with memoryview(data) as view:
                if self.top_fields is not None:
                    self._check_keys(_KEYED.decode(view), self.top_fields)
                else:
                    _ANY.decode(view)
            return None
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            problem, _ = gojson.syntax_problem(data)
            if problem is None and self.top_fields is not None:  # (not an object, or deep: Go's decoding decides)
                self.folded_keys = True
            return problem

    def _array(self, data: mmap.mmap, start: int, end: int, path: list[int | str]) -> gojson.JSONInputError | None:
        """Check the array at bytes [start, end) piece by piece: each piece from one cut to
        the next, in brackets of its own, read into one buffer (reading the file is
        cheaper than touching its pages through the map)."""
        cuts = element_cuts(data, start, end, PIECE_BYTES)
        bounds = [start - 1, *cuts, end]
        buffer = memoryview(bytearray(max(b - a for a, b in zip(bounds, bounds[1:])) + 2))
        index, k = 0, 0
        with open(self.path, "rb", buffering=0) as f:
            while k < len(bounds) - 1:
                first, last = bounds[k] + 1, bounds[k + 1]
                opened, closed = k > 0, k < len(bounds) - 2  # the brackets a piece needs of its own
                buffer[0:1], size = b"[", last - first
                f.seek(first)
                if f.readinto(buffer[1 : 1 + size]) != size:
                    raise OSError("the file changed while it was read")
                buffer[1 + size : 2 + size] = b"]"
                piece = buffer[0 if opened else 1 : 2 + size if closed else 1 + size]
                try:
                    elements = _ELEMENTS.decode(piece)
                    may_fold = any(buffer.obj.find(b, 0, size + 2) >= 0 for b in _FOLD_BYTES)
                    if self.element_fields is not None and may_fold:
                        for i, element in enumerate(_KEYED_ELEMENTS.decode(piece)):
                            self._check_keys(element, self.element_fields, [*path, index + i])
                    index += len(elements)
                    k += 1
                    continue
                except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                    pass
                # Token by token from the piece's start (the last cut proved to lie between
                # elements) until past a later cut, or the end: the exact verdict.
                if self.element_fields is not None:
                    self.folded_keys = True  # (keys not checked from here: Go's decoding decides)
                at, inside = (first, [*path, index]) if k else (start if path else 0, path)
                stopped_in: list[int | str] = []
                problem, stopped = gojson.syntax_problem(
                    data, at, inside, stop_depth=len(path) if path else -1, resume_at=set(cuts[k:]),
                    stopped_in=stopped_in,
                )  # fmt: skip
                if problem is not None or stopped not in cuts[k:]:
                    return problem
                k = cuts.index(stopped) + 1  # go on quickly from that cut
                index = int(stopped_in[-1]) + 1
        return None

    def _check_keys(self, obj: Any, fields: dict[str, Any], path: list[int | str] | None = None) -> None:
        """Whether an object's keys (and those of its fields that are structs or lists of
        structs) are all exact names or ignored by Go; folded_keys is set otherwise. A
        timestamp (gojson.TIME) written with an escape is noted: Go refuses it."""
        if not isinstance(obj, dict):
            return
        for key, value in obj.items():
            name = key if key in fields["fields"] else fields["folded"].get(gojson.go_fold(key))
            if name is not None and fields["fields"][name] == gojson.TIME and path is not None:
                self._note_escaped_time(bytes(value), [*path, name])
            if key not in fields["fields"]:
                self.folded_keys |= name is not None
                continue
            inner = fields["fields"][key]
            try:
                if isinstance(inner, dict):
                    self._check_keys(_KEYED.decode(value), inner)
                elif isinstance(inner, list) and isinstance(inner[0], dict):
                    for element in _KEYED_ELEMENTS.decode(value):
                        self._check_keys(element, inner[0])
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass  # not an object (or array of them): the loader names the type

    def _note_escaped_time(self, raw: bytes, path: list[int | str]) -> None:
        """Go's time.Time.UnmarshalJSON parses the bytes between the quotes unescaped: a
        backslash there (`"2026-07-16T18:11:00\\u005a"`) is no RFC 3339 timestamp."""
        if self._escaped_time is None and raw.startswith(b'"') and b"\\" in raw:
            text = raw.decode("utf-8", errors="s8f_go_replace")
            self._escaped_time = gojson.JSONInputError(
                f"not an RFC 3339 timestamp: {text} (written with an escape: Go parses a timestamp's bytes "
                "as they are, unescaped)", path, syntax=False)  # fmt: skip


def stream_problem(path: Path, cuts: Sequence[int] = ()) -> gojson.JSONInputError | None:
    """Where a file of JSON values one after another (pages of arrays, JSON Lines) stops
    being what Go's decoder reads value by value (None: it is such JSON). msgspec checks
    the blocks between the cuts (offsets where a value may begin) at C speed; a block it
    refuses is read token by token, value by value (gojson.syntax_problem: the exact rule;
    the place names the value by its position), until a value ends where a later block
    begins."""
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        if size == 0:
            return None  # no values: no verdict on the syntax (the loader finds too few records)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data, memoryview(data) as view:
            bounds = [0, *cuts, size]
            starts = {at: k for k, at in enumerate(bounds[:-1])}
            pos, value, k = 0, 0, 0
            while k < len(bounds) - 1:
                try:
                    with view[bounds[k] : bounds[k + 1]] as block:
                        value += len(_ANY.decode_lines(block))
                    pos, k = bounds[k + 1], k + 1
                    continue
                except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                    pass
                while True:
                    while pos < size and data[pos] in b" \t\r\n":
                        pos += 1
                    if pos >= size:
                        return None
                    if starts.get(pos, -1) > k:  # a value ends where a later block begins: msgspec again
                        k = starts[pos]
                        break
                    problem, pos = gojson.syntax_problem(data, pos, (), stop_depth=0)
                    if problem is not None:
                        problem.path = [value, *problem.path]
                        return problem
                    value += 1
    return None
