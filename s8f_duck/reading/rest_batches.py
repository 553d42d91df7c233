"""GitHub's REST issue objects cut out of a dump by msgspec, as Arrow record batches of
the JSON texts of the fields rest_objects reads: the dump parsed once, strictly.

A REST object is mostly members that no rule reads (user, reactions, a dozen API urls).
msgspec decodes the dump block by block into Structs of the fields read, each kept as
its raw JSON text (msgspec.Raw: no string is built), and skips the other members at C
speed while checking their syntax; sql/raw/rest/batches/rest_objects.sql then reads the
texts as DuckDB reads JSON values. Every byte of the dump is decoded by msgspec, which
refuses whatever Go's decoder refuses (NaN, trailing commas, a byte-order mark, ...; see
strictness.py), so a dump that passes needs no other check. msgspec keeps the last of a
repeated key, as Go does; REST keys are matched exactly (rest_objects.sql).

What this reading cannot take as Go would raises NotHere, and the loader reads the dump
the other ways (rest_dumps.py), after the strict check: bytes msgspec refuses (not JSON
as Go reads it, or a lone UTF-16 surrogate, or nesting deeper than msgspec goes), a read
field that is not valid UTF-8 (Go reads it with U+FFFD), a value of a kind the Structs do
not take (a page or record of another type, labels or pull_request that are not objects),
a block cut inside a value.

Blocks are cut where a value surely ends: an array between two records that begin with
the first record's first key (a quoted key cannot be inside a string, whose quotes are
escaped), pages between `]` and `[{` + that key (`][` is never between two values inside
a value), JSON Lines before a `{` that starts a line (a new line is never inside a
string; nested values of indented JSON start indented).
"""

from __future__ import annotations

import mmap
import re
import threading
from collections.abc import Iterator
from itertools import chain
from operator import attrgetter
from pathlib import Path
from queue import Full, Queue
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa

BLOCK_BYTES = 32 << 20  # how much of the dump is decoded at once (one Arrow batch)
CUT_WINDOW = 1 << 20  # how far past a block's end its cut is looked for (else the block grows)
_EMPTY = msgspec.Raw()


class NotHere(Exception):
    """The dump cannot be read this way (see the module's doc); the loader reads it otherwise."""


class _Label(msgspec.Struct, gc=False):
    name: msgspec.Raw = msgspec.Raw(b"null")  # (a missing name reads as null, as DuckDB's reader gives it)


class _PullRequest(msgspec.Struct, gc=False):
    html_url: msgspec.Raw = _EMPTY


class _Object(msgspec.Struct, gc=False):
    """The members rest_objects reads (input_forms.REST_FIELDS); each missing one is empty."""

    number: msgspec.Raw = _EMPTY
    title: msgspec.Raw = _EMPTY
    body: msgspec.Raw = _EMPTY
    state: msgspec.Raw = _EMPTY
    html_url: msgspec.Raw = _EMPTY
    labels: list[_Label | None] | None = None
    created_at: msgspec.Raw = _EMPTY
    updated_at: msgspec.Raw = _EMPTY
    closed_at: msgspec.Raw = _EMPTY
    pull_request: _PullRequest | None = None


_NULL_ELEMENT = _Object()
_ARRAY = msgspec.json.Decoder(list[_Object | None])
_LINE = msgspec.json.Decoder(_Object | None)
_ENCODE = msgspec.json.Encoder().encode
_TEXT_FIELDS = ("number", "title", "body", "state", "html_url", "created_at", "updated_at", "closed_at")
SCHEMA = pa.schema(
    [("record", pa.int64()), ("null_element", pa.bool_())]
    + [(name, pa.large_string()) for name in (*_TEXT_FIELDS, "labels", "pull_request_url")]
)


def batches(path: Path, container: str, first_key: bytes | None) -> pa.RecordBatchReader:
    """The dump's objects as batches of SCHEMA (record: the 0-based position over the
    whole dump; each text column a JSON text, '' where the member is missing); reading
    them raises NotHere where the dump cannot be read so."""
    if first_key is None:
        raise NotHere("the first record is not an object")
    return pa.RecordBatchReader.from_batches(SCHEMA, _ahead(_batches(path, container, first_key)))


_END = object()


def _ahead(batches: Iterator[pa.RecordBatch], depth: int = 2) -> Iterator[pa.RecordBatch]:
    """The batches, made on a thread of their own up to `depth` ahead of the reader: DuckDB
    reads a stream on one thread, which would otherwise wait while msgspec decodes each
    next block (100,000 issues and their pull requests: 1.8 s instead of 3.0). msgspec
    holds Python's lock, DuckDB lets go of it, so the two share the cores."""
    queue: Queue[Any] = Queue(depth)
    stop = threading.Event()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                queue.put(item, timeout=0.1)
                return True
            except Full:
                continue
        return False

    def produce() -> None:
        try:
            for batch in batches:
                if not put(batch):
                    return
            put(_END)
        except BaseException as exc:  # noqa: BLE001  # (NotHere, or a bug) raised to the reader
            put(exc)
        finally:
            batches.close()  # type: ignore[attr-defined]

    thread = threading.Thread(target=produce, name="s8f-duck-rest-batches", daemon=True)
    thread.start()
    try:
        while (item := queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


def cuts(path: Path, container: str, first_key: bytes | None) -> list[int]:
    """Where the blocks but the first begin (none without a first key)."""
    if first_key is None or path.stat().st_size == 0:
        return []
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return [start for start, _, _ in _blocks(data, container, first_key)][1:]


def _batches(path: Path, container: str, first_key: bytes) -> Iterator[pa.RecordBatch]:
    record = 0
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        for start, cut, last in _blocks(data, container, first_key):
            with memoryview(data) as whole, whole[start:cut] as view:
                if container != "array":
                    objects = _decoded(view, container)
                else:  # an array of its own (the first begins with the dump's '[', the last ends with its ']')
                    objects = _decoded(b"".join((b"[" if start else b"", view, b"" if last else b"]")), container)
                batch = _batch(objects, record) if objects else None
                record += len(objects)
                del objects
            if batch is not None:
                yield batch
            page = mmap.PAGESIZE * (start // mmap.PAGESIZE)
            data.madvise(mmap.MADV_DONTNEED, page, cut - page)  # decoded: its pages stay in the page cache only
    if record == 0:
        raise NotHere("no records")


def _decoded(block: Any, container: str) -> list[_Object | None]:
    try:
        if container == "array":
            return _ARRAY.decode(block)
        if container == "pages":
            return [o for page in _ARRAY.decode_lines(block) for o in page]
        return _LINE.decode_lines(block)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        raise NotHere(str(exc)) from None


def _blocks(data: mmap.mmap, container: str, first_key: bytes) -> Iterator[tuple[int, int, bool]]:
    """The dump in blocks that each decode on their own (when the cuts hold: else a block
    fails to decode), in order: where each begins and ends, and whether it is the last
    (an array's blocks but the first begin after the comma that ends the one before)."""
    pattern = {
        "array": re.compile(rb"\}[ \t\r\n]*(,)[ \t\r\n]*\{[ \t\r\n]*" + re.escape(first_key)),
        "pages": re.compile(rb"\][ \t\r\n]*()\[[ \t\r\n]*\{[ \t\r\n]*" + re.escape(first_key)),
        "lines": re.compile(rb"\n()\{"),
    }[container]
    size, start = len(data), 0
    while start < size:
        cut, target = size, start + BLOCK_BYTES
        while target < size:
            found = pattern.search(data, target, min(size, target + CUT_WINDOW))
            if found is not None:
                cut = found.start(1)
                break
            target += CUT_WINDOW  # no cut near: a larger block
        yield start, cut, cut == size
        start = cut + (1 if container == "array" else 0)


def _batch(objects: list[_Object | None], first_record: int) -> pa.RecordBatch:
    """The objects' fields as columns of JSON texts. The texts of all columns are one
    buffer and their offsets another, each column a slice of them: when DuckDB's reading
    thread lets go of a batch, memory that Python owns takes Python's lock to let go of,
    which the thread decoding the next block holds for long stretches (the reading thread
    waited for it at each of a batch's buffers, and the two threads took turns instead of
    sharing the cores); the other columns are in memory that Arrow owns. The texts are not
    checked to be UTF-8 here: DuckDB parses each text of a record it keeps as JSON, and
    refuses one that is not (Go reads it with U+FFFD: the loader then reads the dump
    otherwise)."""
    n = len(objects)
    if None in objects:
        nulls = pa.array([o is None for o in objects], pa.bool_())
        objects = [_NULL_ELEMENT if o is None else o for o in objects]
    else:
        nulls = pa.repeat(False, n)
    columns: list[list[Any]] = [list(map(attrgetter(name), objects)) for name in _TEXT_FIELDS]
    columns.append(list(map(_ENCODE, map(attrgetter("labels"), objects))))  # (None: null, as a missing member reads)
    columns.append([_EMPTY if o.pull_request is None else o.pull_request.html_url for o in objects])
    texts = list(chain.from_iterable(columns))
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)), out=offsets[1:])
    offsets_buffer, data = pa.py_buffer(offsets), pa.py_buffer(b"".join(texts))
    arrays = [pa.array(range(first_record, first_record + n), pa.int64()), nulls]
    arrays += [pa.LargeStringArray.from_buffers(n, offsets_buffer.slice(8 * k * n, 8 * (n + 1)), data)
               for k in range(len(columns))]  # fmt: skip
    return pa.RecordBatch.from_arrays(arrays, schema=SCHEMA)
