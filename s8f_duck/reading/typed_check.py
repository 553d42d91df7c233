"""Whether an answer bundle or submission has nothing for the loader's checks to find, so
that DuckDB can read its answers straight into their types (sql/bundle/typed/).

The checks in SQL (sql/bundle/bundle_answers.sql, bundle_problems.sql) type every value
as Go would decode it and name the first that Go would refuse; on a document with none,
they only cost time (most of a small grade's). msgspec decodes the document into the same
types at C speed, on a thread of its own while DuckDB reads: every answer field a string,
an integer within int64, a list of them (none null: Go reads a null element as the zero
value, which the typed read would then have to put in every list), or null; every key
exactly a field's name (Go matches keys in any letter case: an unknown key might be one,
so it fails this check); and, msgspec being strict, the document JSON as Go reads it.
When it passes, the typed read is what the checked read would give; when it fails,
nothing is lost but time: the loader reads the document the checked way, which names the
problem (or finds none).

Only documents laid out as freeze writes them (split.array_member_span) are checked: the
answers array is decoded in pieces cut between elements, so at most PIECE_BYTES of it and
its decoded values are in memory at once. A cut is the nearest `},` before a `{`, not
proved to lie between elements: a wrong one can only make the check fail, since when
`[X]` and `[Y]` both decode as arrays of answers, so does `[X,Y]`.
"""

from __future__ import annotations

import gc
import mmap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, BinaryIO

import msgspec

from s8f_duck.reading.split import array_member_span, element_cuts

PIECE_BYTES = 8 << 20

Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class Answer(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An answer as the reference decodes it (tuples: Python's collector skips them). A
    field the object does not have is UNSET, one it gives as null None: encoded again
    (reading/submissions.py), it has exactly the keys it was read with."""

    id: str | None | msgspec.UnsetType = msgspec.UNSET
    split: str | None | msgspec.UnsetType = msgspec.UNSET
    state: str | None | msgspec.UnsetType = msgspec.UNSET
    labels: tuple[str, ...] | None | msgspec.UnsetType = msgspec.UNSET
    references: tuple[Int64, ...] | None | msgspec.UnsetType = msgspec.UNSET
    duplicate_targets: tuple[Int64, ...] | None | msgspec.UnsetType = msgspec.UNSET
    scope_contradictions: tuple[str, ...] | None | msgspec.UnsetType = msgspec.UNSET


class Aggregates(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    state_counts: dict[str, Int64 | None] | None | msgspec.UnsetType = msgspec.UNSET
    label_counts: dict[str, Int64 | None] | None | msgspec.UnsetType = msgspec.UNSET
    newest_issue_ids: tuple[str | None, ...] | None | msgspec.UnsetType = msgspec.UNSET
    most_recently_updated_issue_ids: tuple[str | None, ...] | None | msgspec.UnsetType = msgspec.UNSET


class _Document(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The document around its answers (their array emptied)."""

    schema: str | None = None
    corpus_sha256: str | None = None
    answers: tuple[Answer | None, ...] | None = None
    aggregates: Aggregates | None = None


_DOCUMENT = msgspec.json.Decoder(_Document)
_ANSWERS = msgspec.json.Decoder(tuple[Answer | None, ...])


_collector = threading.Lock()
_pauses = 0  # checks running with the cycle collector paused
_collector_was_enabled = True


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while checks decode: the decoded tuples are tracked
    containers that cannot be in a cycle, yet with thousands of them alive the collector
    runs over them again and again (about a sixth of a check's time). Checks on several
    threads share the pause; the last to end turns the collector back on, if it was."""
    global _pauses, _collector_was_enabled
    with _collector:
        if _pauses == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _collector:
            _pauses -= 1
            if _pauses == 0 and _collector_was_enabled:
                gc.enable()


class TypedCheck:
    """Check a bundle file on a thread of its own, from `start()`; `passed()` waits for the
    verdict. `span` is where its answers array lies (None: not freeze's layout, nothing
    checked). The caller starts it just before DuckDB's typed read: the check holds
    Python's lock for most of its time, and would hold back the statements before that
    read, which need the lock between them; the read itself runs without it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.span = array_member_span(path, "answers") if path.is_file() else None
        self._passed = False
        self._thread = threading.Thread(target=self._run, name="s8f-duck-typed-json", daemon=True)

    def start(self) -> None:
        if self.span is not None and self._thread.ident is None:
            self._thread.start()

    def passed(self) -> bool:
        self.start()
        if self.span is not None:
            self._thread.join()
        return self._passed

    def _run(self) -> None:
        try:
            with _collector_paused():
                self._passed = self._check()
        except (OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            self._passed = False  # the checked read decides

    def _check(self) -> bool:
        assert self.span is not None
        start, end = self.span
        with open(self.path, "rb", buffering=0) as f:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:  # (only near the cuts)
                bounds = [start, *element_cuts(data, start, end, PIECE_BYTES, nearest=True), end - 1]
            _DOCUMENT.decode(_read_range(f, 0, start + 1) + b"]" + _read_range(f, end, None))
            # Each piece between brackets of its own, read (not mapped: no file pages left
            # resident) into one buffer: a new one per piece would be fresh memory, which
            # the kernel zeroes first, and joining the brackets on would copy it again.
            buffer = bytearray(max(b - a for a, b in zip(bounds, bounds[1:])) + 2)
            view = memoryview(buffer)
            for first, past in zip(bounds, bounds[1:]):  # (a cut is the ',' between two elements)
                size = past - first - 1
                buffer[0], buffer[size + 1] = ord("["), ord("]")
                f.seek(first + 1)
                if f.readinto(view[1 : size + 1]) != size:
                    raise OSError("the file changed while it was read")
                _ANSWERS.decode(view[: size + 2])
        return True


def _read_range(f: BinaryIO, start: int, end: int | None) -> bytes:
    f.seek(start)
    data = f.read() if end is None else f.read(end - start)
    if end is not None and len(data) != end - start:
        raise OSError("the file changed while it was read")
    return data
