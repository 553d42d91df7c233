"""The three artifacts written byte for byte from the freeze tables (docs/format.md §6).

Every file is written to a temporary path beside its destination and only renamed into
place by `Outputs.commit` (commit.py), so a failed command leaves existing files untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.pipeline.steps import cursor, memory_limit_mb, rows
from s8f_duck.reading.gojson import encode_string
from s8f_duck.reading.scan import file_contains, file_sha256  # noqa: F401  (the freeze's leak scan)
from s8f_duck.reading.schemas import ANSWERS_SCHEMA, CORPUS_SCHEMA, REPORT_SCHEMA, SUBMISSION_SCHEMA  # noqa: F401
from s8f_duck.safety.commit import Outputs  # noqa: F401  (where the commands have always found it)
from s8f_duck.safety.writers import ComparingWriter, HashingWriter, write_text  # noqa: F401

ANSWER_FIELD_NEEDLES = ('"references"', '"duplicate_targets"', '"scope_contradictions"', '"aggregates"')
QUESTION_SLICES = [
    "held-out state/label classification",
    "reference and duplicate relations",
    "scope contradiction detection",
    "exhaustive state/label counts",
    "chronology top-10",
    "recent-update top-10",
]
PROVENANCE = [
    "source records fetched from the public GitHub Issues API and scrubbed through a committed corpus redaction map",
    "source state/labels/closure metadata remain in candidate input; only derived relation/cue/aggregate answers are isolated",
    "train/tune/test split groups exact duplicate titles/bodies and in-corpus reference components before deterministic hashing",
    "candidate pipelines receive only the public corpus",
]
_BATCH = 4096


def stream_chunks(
    con: duckdb.DuckDBPyConnection,
    view: str,
    writer: HashingWriter,
    *,
    batch: int | None = None,
    needles: Sequence[str] = (),
) -> tuple[int, dict[str, bool]]:
    """Write the `chunk` column of a view by ascending `number`, rows concatenated;
    return the number of rows and which needles occur in the written chunks.

    The view is read in ranges of `batch` numbers (all at once when None), so no sort
    holds more texts than that at once; and Arrow's value buffer is already the rows'
    concatenation, so the rows are never turned into Python strings. The needles are
    searched for by DuckDB in the chunks it hands over (no second read of the file).
    A small view's rows come as Python strings instead: importing pyarrow would cost more."""
    ranges: list[dict[str, object]] = [{}]  # one range, all rows: no need to know the numbers first
    where = ""
    if batch is not None:  # the first and last number of each `batch` rows in order
        bounds = con.execute(
            f"SELECT min(number), max(number) FROM (SELECT number, (row_number() OVER (ORDER BY number) - 1) // $batch AS k "
            f"FROM {view}) GROUP BY k ORDER BY k",
            {"batch": batch},
        ).fetchall()
        ranges = [{"lo": lo, "hi": hi} for lo, hi in bounds]
        where = " WHERE number BETWEEN $lo AND $hi"
    # One RE2 pass flags the chunks holding any needle (far cheaper than a search per
    # needle); the rare flagged ones are then searched for each.
    pattern = "|".join("".join(c if c.isalnum() or c == "_" else "\\" + c for c in n) for n in needles)
    flag = "regexp_matches(chunk, $pattern)" if needles else "false"
    query = f"SELECT chunk, {flag} AS flagged FROM {view}{where} ORDER BY number"
    found = dict.fromkeys(needles, False)
    rows_written = 0
    if batch is None and _rows(con) <= SMALL_VIEW_ROWS:
        result = con.execute(query, {"pattern": pattern} if needles else {})
        while rows := result.fetchmany(_BATCH):
            writer.write("".join(chunk for chunk, _ in rows))
            rows_written += len(rows)
            for chunk in (chunk for chunk, flagged in rows if flagged):
                found.update((needle, True) for needle in needles if needle in chunk)
        return rows_written, found
    import pyarrow as pa  # here, not at the top: importing it costs 0.07 s that small inputs never need

    for params in ranges:
        if needles:
            params["pattern"] = pattern
    for batches in _range_batches(con, query, ranges):
        for record_batch in batches:
            column = record_batch.column(0)
            if len(column) == 0:
                continue
            if column.null_count or not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
                raise TypeError(f"expected non-null strings from {view}, got {column.type}")
            _, offsets, data = column.buffers()
            width = "q" if pa.types.is_large_string(column.type) else "i"
            ends = memoryview(offsets).cast(width)
            writer.write_bytes(memoryview(data)[ends[column.offset] : ends[column.offset + len(column)]])
            rows_written += len(column)
            if record_batch.column(1).true_count:
                for chunk in column.filter(record_batch.column(1)).to_pylist():
                    found.update((needle, True) for needle in needles if needle in chunk)
    return rows_written, found


def _range_batches(
    con: duckdb.DuckDBPyConnection, query: str, ranges: list[dict[str, object]]
) -> Iterator[Iterable[Any]]:
    """Each range's result as Arrow record batches. With several ranges, range k+1 is
    computed and sorted on a second thread while range k is read, hashed and written:
    DuckDB's work and the writer's then share the two cores. A sorted result's reader is
    ready once the sort is done, and it streams from the sort's own buffers (within
    DuckDB's memory limit): two cursors take turns, one being read while the other sorts.
    (Sorting into a table instead cost 0.4 CPU-seconds more at 100,000 issues.)"""
    if len(ranges) == 1:
        yield con.sql(query, params=ranges[0]).to_arrow_reader(_BATCH)
        return

    with cursor(con) as even, cursor(con) as odd, ThreadPoolExecutor(1) as pool:

        def sort(k: int) -> Any:  # returns when range k is sorted
            return (odd if k % 2 else even).sql(query, params=ranges[k]).to_arrow_reader(_BATCH)

        pending = pool.submit(sort, 0)
        for k in range(len(ranges)):
            reader = pending.result()
            if k + 1 < len(ranges):
                pending = pool.submit(sort, k + 1)  # on the other cursor
            with reader:
                yield reader  # a sorted result's batches come in order


SMALL_VIEW_ROWS = 10_000  # views of up to this many rows (one per record) are read as Python strings


def _rows(con: duckdb.DuckDBPyConnection) -> int:
    """How many rows public_json and answers_json have: one per record."""
    return int(con.execute("SELECT count(*) FROM raw_issues").fetchall()[0][0])


# A corpus of more than SMALL_VIEW_ROWS records is written in at least this many ranges.
# Two are held at once (_range_batches): at 100,000 issues six peaked at 1.13-1.20 GiB,
# ten at 1.05-1.11 GiB, in about the same time.
PUBLIC_RANGES = 10


def public_batch(con: duckdb.DuckDBPyConnection, text_bytes: int | None = None) -> int | None:
    """How many public records to sort and write at once (None: all). Ranges whose texts
    fit in an eighth of the memory limit (two are held at once, and a sort of more than a
    quarter would spill to disk; a million issues peak at 3.5 GiB), and at
    least PUBLIC_RANGES of them for a corpus of more than SMALL_VIEW_ROWS records: the
    sorts of the texts are what set the peak memory. text_bytes is the texts' size as
    estimated by the caller (freeze gives the input file's size, which holds the texts
    JSON-encoded, never shorter than the strings); without it the texts are measured, a
    pass over all of them (0.7 s at a million issues)."""
    if text_bytes is None:
        query = "SELECT count(*), sum(strlen(title) + strlen(body)) FROM raw_issues"
        records, text_bytes = con.execute(query).fetchall()[0]
    else:
        (records,) = con.execute("SELECT count(*) FROM raw_issues").fetchall()[0]
    if not records or not text_bytes:
        return None
    budget = memory_limit_mb(con) * 2**20 // 8
    ranges = -(-text_bytes // budget) if budget else 1
    if records > SMALL_VIEW_ROWS:
        ranges = max(ranges, PUBLIC_RANGES)
    return None if ranges <= 1 else max(1024, -(-records // ranges))


def write_public(
    con: duckdb.DuckDBPyConnection, writer: HashingWriter, source: str, text_bytes: int | None = None
) -> tuple[str, dict[str, bool]]:
    """Stream the public corpus (header, `public_json` chunks, footer) to the writer; return
    its SHA-256 and which of the derived answer fields' names (ANSWER_FIELD_NEEDLES) occur
    in it. text_bytes: as for public_batch."""
    (frozen_at,) = con.execute("SELECT frozen_at FROM corpus_header").fetchall()[0]
    header = (
        "{\n"
        f'  "schema": {encode_string(CORPUS_SCHEMA)},\n'
        f'  "source": {encode_string(source)},\n'
        f'  "frozen_at": {encode_string(frozen_at)},\n'
        '  "records": ['
    )
    writer.write(header)
    records, found = stream_chunks(con, "public_json", writer, batch=public_batch(con, text_bytes), needles=ANSWER_FIELD_NEEDLES)
    footer = "\n  ]\n}\n" if records else "]\n}\n"
    writer.write(footer)
    # A needle spans no chunk boundary: each would have to hold the "}," or "[\n" there.
    for needle in found:
        found[needle] = found[needle] or needle in header or needle in footer
    return writer.close(), found


def _answers_header(schema: str, corpus_sha256: str) -> str:
    return "{\n" f'  "schema": {encode_string(schema)},\n' f'  "corpus_sha256": {encode_string(corpus_sha256)},\n'


def write_answers(con: duckdb.DuckDBPyConnection, path: Path, corpus_sha256: str, schema: str = ANSWERS_SCHEMA) -> str:
    """Stream the answer bundle (or, with the submission schema, a submission) from
    `answers_json` and `aggregates_json`; return its SHA-256."""
    writer = HashingWriter(path)
    writer.write(_answers_header(schema, corpus_sha256) + '  "answers": [')
    records, _ = stream_chunks(con, "answers_json", writer)
    (aggregates,) = con.execute("SELECT chunk FROM aggregates_json").fetchall()[0]
    writer.write(("\n  ],\n" if records else "],\n") + '  "aggregates": ' + aggregates)
    writer.write("\n}\n")
    return writer.close()


UNBOUND_SHA256 = "0" * 64  # an answer bundle's corpus digest until the public corpus has one


def bind_answers(path: Path, corpus_sha256: str) -> str:
    """Write the public corpus's digest over the UNBOUND_SHA256 that an answer bundle was
    written with (the same length: no other byte moves); return the bundle's SHA-256."""
    offset = len(_answers_header(ANSWERS_SCHEMA, UNBOUND_SHA256).encode()) - len(f'"{UNBOUND_SHA256}",\n')
    with open(path, "r+b") as f:
        f.seek(offset)
        if f.read(66) != f'"{UNBOUND_SHA256}"'.encode():
            raise RuntimeError(f"{path}: no unbound corpus digest at byte {offset}")
        f.seek(offset + 1)
        f.write(corpus_sha256.encode())
    return file_sha256(path)


def report_document(
    con: duckdb.DuckDBPyConnection, corpus_sha256: str, answers_sha256: str, oracle_grade: dict[str, Any]
) -> dict[str, Any]:
    """The report as an ordered dict, from `report_counts` and `leak_checks`."""
    counts = rows(con, "SELECT * FROM report_counts")[0]
    checks = rows(con, "SELECT * FROM leak_checks")[0]
    return {
        "schema": REPORT_SCHEMA,
        "corpus_sha256": corpus_sha256,
        "answers_sha256": answers_sha256,
        **counts,
        "leak_checks": dict(sorted(checks.items())),
        "blind_oracle_grade": oracle_grade,
        "question_slices": QUESTION_SLICES,
        "provenance": PROVENANCE,
    }


PUBLIC_COLUMNS = (
    "id, split, number, title, body, created_at, updated_at, url, state, labels, closed_at, title_sha256, body_sha256"
)


def write_parquet(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """The public corpus records as one Parquet file (for pandas / polars users)."""
    target = str(path).replace("'", "''")
    con.execute(f"COPY (SELECT {PUBLIC_COLUMNS} FROM issues ORDER BY number) TO '{target}' (FORMAT parquet)")
