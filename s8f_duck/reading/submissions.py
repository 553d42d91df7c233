"""Submissions read for a grade, any number at once, each file read once (docs/format.md §7).

msgspec decodes a file into the reference's Go types in one pass: strict JSON, every
answer field of its type, every key exactly a field's name (Go matches keys in any letter
case, so a key that might be one sends the file to the checked reader), null as the zero
value. The decoded values go to DuckDB as one line per submission of a batch file, which
one statement reads for all of them (sql/bundle/batch/): the tables `submitted_{name}` of
load.BUNDLE_TABLES and `submitted_headers`, each keyed by `submission`, the submission's
place in the batch. A file msgspec refuses, or larger than WHOLE_BYTES, goes to the
checked reader (load.load_bundle), which names the problem or, finding none, gives the
same rows; an unusable file is reported for itself and leaves no rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import msgspec

from s8f_duck.pipeline.steps import run_steps
from s8f_duck.reading.load import BUNDLE_TABLES, SUBMISSION_STEPS, check_answer_bundle, drop, load_bundle
from s8f_duck.reading.typed_check import Aggregates, Answer
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.scratch import scratch_directory

# A larger file is read by the checked reader, which holds only a part of it at once.
WHOLE_BYTES = 8 << 20

AGGREGATES = ("state_counts", "label_counts", "newest_issue_ids", "most_recently_updated_issue_ids")
FIELDS = frozenset({"schema", "corpus_sha256", "answers", "aggregates"})

# The errors one submission may end in without ending the others' grades.
SUBMISSION_ERRORS = (UnusableInput, duckdb.OutOfMemoryException, MemoryError, RecursionError)

_MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_DECODERS = {
    "schema": msgspec.json.Decoder(str | None),
    "corpus_sha256": msgspec.json.Decoder(str | None),
    "answers": msgspec.json.Decoder(tuple[Answer | None, ...] | None),
    "aggregates": msgspec.json.Decoder(Aggregates | None),
}
_LINE = msgspec.json.Encoder()


def _decoded(path: Path, submission: int) -> bytes | None:
    """The submission's line of the batch file: its values as the reference decodes them;
    None when the checked reader must decide."""
    try:
        if path.stat().st_size > WHOLE_BYTES:
            return None
        data = path.read_bytes()
        members = _MEMBERS.decode(data)
        values = {key: _DECODERS[key].decode(raw) for key, raw in members.items() if key in _DECODERS}
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if any(key not in FIELDS and (not key.isascii() or key.lower() in FIELDS) for key in members):
        return None  # a key Go might match to a field in another letter case
    answers = _LINE.encode(values.get("answers") or ())
    # A repeated key (Go refuses a repeated field and keeps the last of a map's keys; the
    # checked reader decides) is one the values no longer hold. Every key is followed by a
    # ':' and no other ':' lies outside strings, so the file holds as many as the values
    # encoded again (and the members they ignore) only when no key was dropped; an escaped
    # ':' in a string would upset the count, so a file with one goes to the checked reader.
    if b"\\u003a" in data or b"\\u003A" in data:
        return None
    colons = sum(1 + key.count(":") for key in members) + sum(
        (answers if key == "answers" else _LINE.encode(values[key]) if key in values else bytes(raw)).count(b":")
        for key, raw in members.items()
    )
    if colons != data.count(b":"):
        return None
    aggregates = values.get("aggregates")
    line: dict[str, Any] = {"submission": submission, "schema": values.get("schema") or "",
                            "corpus_sha256": values.get("corpus_sha256") or "", "answers": msgspec.Raw(answers)}  # fmt: skip
    for name in AGGREGATES:
        value = getattr(aggregates, name) if aggregates is not None else None
        line[f"{name}_missing"] = value is None or value is msgspec.UNSET
        if isinstance(value, dict):  # null counts 0
            line[name] = [{"key": key, "count": count or 0} for key, count in value.items()]
        else:
            line[name] = [entry or "" for entry in value or ()]
    return _LINE.encode(line)


def load_submissions(con: duckdb.DuckDBPyConnection, paths: Sequence[Path]) -> list[str | BaseException]:
    """The keyed tables of every submission file (in the connection's current schema); for
    each path, the corpus digest it is bound to, or the error that makes it unusable."""
    lines = [_decoded(path, submission) for submission, path in enumerate(paths)]
    _read_lines(con, [line for line in lines if line is not None])
    results: list[str | BaseException] = ["" for _ in paths]
    for submission, line in enumerate(lines):
        if line is None:
            try:
                _load_checked(con, paths[submission], submission)
            except SUBMISSION_ERRORS as exc:
                results[submission] = exc
    for submission, digest in con.execute("SELECT submission, corpus_sha256 FROM submitted_headers").fetchall():
        results[submission] = digest
    return results


def load_answer_bundle(con: duckdb.DuckDBPyConnection, path: Path, expect_schema: str) -> str:
    """An answer bundle as load.load_bundle leaves it (its tables, unprefixed, in the current
    schema), read once when msgspec vouches for it; returns the corpus digest it is bound to."""
    line = _decoded(path, 0)
    if line is None:
        return load_bundle(con, path, "", expect_schema)
    database, current = con.execute("SELECT current_database(), current_schema()").fetchall()[0]
    once = f'"{database}"."bundle_once_{current}"'  # (each schema's own: grades run at once)
    con.execute(f"CREATE SCHEMA {once}")
    try:
        with con.cursor() as reader:
            reader.execute(f"USE {once}")
            _read_lines(reader, [line])
        for name in BUNDLE_TABLES:
            con.execute(f'CREATE OR REPLACE TABLE "{database}"."{current}"."{name}" AS '
                        f"SELECT * EXCLUDE (submission) FROM {once}.submitted_{name}")  # fmt: skip
        schema, digest = con.execute(f"SELECT schema, corpus_sha256 FROM {once}.submitted_headers").fetchall()[0]
    finally:
        con.execute(f"DROP SCHEMA {once} CASCADE")
    check_answer_bundle(con, path, schema, expect_schema, f'"{database}"."{current}".answers')
    return digest


def _read_lines(con: duckdb.DuckDBPyConnection, lines: list[bytes]) -> None:
    """The keyed tables of the submissions whose batch lines are given (sql/bundle/batch/)."""
    with scratch_directory("s8f-duck-submissions-") as scratch:
        batch = scratch / "batch.jsonl"
        with open(batch, "wb") as out:
            for line in lines:
                out.write(line + b"\n")
        con.execute("SET VARIABLE input_path = ?", [str(batch)])
        # DuckDB's reader keeps buffers of about twice the largest line it allows
        con.execute("SET VARIABLE max_object_size = ?", [max([len(line) + 1 for line in lines] + [1 << 20])])
        run_steps(con, SUBMISSION_STEPS)
    drop(con, "submitted_documents")


def _load_checked(con: duckdb.DuckDBPyConnection, path: Path, submission: int) -> None:
    """One submission by the checked reader, on a cursor of its own (the macros it makes
    stay with it) and in a schema of its own; its rows then added to the keyed tables."""
    database, current = con.execute("SELECT current_database(), current_schema()").fetchall()[0]
    # named for the current schema too: batches graded at once, each in its own schema,
    # would otherwise collide on the same name in the shared database
    own = f'"{database}"."checked_{current}_{submission}"'
    con.execute(f"CREATE SCHEMA {own}")
    try:
        with con.cursor() as reader:
            reader.execute(f"USE {own}")
            digest = load_bundle(reader, path, "", None)
        for name in BUNDLE_TABLES:
            con.execute(f"INSERT INTO submitted_{name} BY NAME SELECT ? AS submission, * FROM {own}.{name}", [submission])
        con.execute("INSERT INTO submitted_headers VALUES (?, NULL, ?)", [submission, digest])
    finally:
        con.execute(f"DROP SCHEMA {own} CASCADE")
