"""Input files into DuckDB tables; the checks and the typing are the SQL under sql/raw,
sql/public and sql/bundle.

JSON is read by DuckDB's own reader, with keys matched in any ASCII letter case as Go
matches them. Where it refuses the bytes (invalid UTF-8, a lone UTF-16 surrogate, not
JSON at all) or where Go would read them differently (a repeated key: Go keeps the last
value; a key that Go's Unicode folding takes for a field, such as `cloſedAt`), the file
is decoded in Python exactly as Go does (gojson.loads) and put into the same table, so
every rule still runs in SQL. Meanwhile strictness.StrictCheck checks that the file is
JSON as Go reads it, which DuckDB's reader does not (it takes NaN, trailing commas, a
byte-order mark): its verdict comes before any other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.pipeline.steps import memory_limit_mb, register, rows, run_steps
from s8f_duck.reading import gojson
from s8f_duck.reading.gojson import ANY, MAP, TIME, list_of, struct
from s8f_duck.reading.schemas import CORPUS_SCHEMA, swapped_hint
from s8f_duck.reading.split import array_member_span, array_parts, copy_range
from s8f_duck.reading.strictness import StrictCheck
from s8f_duck.reading.typed_check import TypedCheck
from s8f_duck.safety.errors import UnusableInput, not_a_file
from s8f_duck.safety.memory import memory_limit
from s8f_duck.safety.scratch import scratch_directory

RAW_STEPS = ("raw/raw_fields", "raw/raw_issues", "raw/raw_problems")
PUBLIC_STEPS = (
    "public/public_records",
    "public/raw_issues",
    "public/public_problems",
    "public/public_header",
)
BUNDLE_STEPS = (
    "bundle/bundle_items",
    "bundle/bundle_answers",
    "bundle/bundle_problems",
    "bundle/bundle_header",
    "bundle/bundle_state_counts",
    "bundle/bundle_label_counts",
    "bundle/bundle_newest_issue_ids",
    "bundle/bundle_most_recently_updated_issue_ids",
    "bundle/bundle_aggregate_nulls",
)
# Submissions for a grade, any number at once (reading/submissions.py): the batch file read,
# then each keyed table `submitted_{name}` made from it, and the digests they are bound to.
SUBMISSION_STEPS = (
    "bundle/batch/submitted_documents",
    "bundle/batch/submitted_headers",
    "bundle/batch/submitted_answers",
    "bundle/batch/submitted_state_counts",
    "bundle/batch/submitted_label_counts",
    "bundle/batch/submitted_newest_issue_ids",
    "bundle/batch/submitted_most_recently_updated_issue_ids",
    "bundle/batch/submitted_aggregate_nulls",
)
# What load_bundle leaves, each as `{prefix}{name}` (from sql/bundle/bundle_{name}.sql).
BUNDLE_TABLES = tuple(Path(step).name.removeprefix("bundle_") for step in (BUNDLE_STEPS[1], *BUNDLE_STEPS[4:]))


# The Go structs the reference decodes each input into (gojson.loads matches keys to them).
RAW_SCHEMA = list_of(struct(
    number=ANY, title=ANY, body=ANY, state=ANY, labels=list_of(struct(name=ANY)),
    createdAt=TIME, updatedAt=TIME, closedAt=TIME, url=ANY,
))  # fmt: skip
PUBLIC_RECORD = struct(
    id=ANY, split=ANY, number=ANY, title=ANY, body=ANY, created_at=ANY, updated_at=ANY, url=ANY, state=ANY,
    labels=ANY, closed_at=ANY, title_sha256=ANY, body_sha256=ANY,
)  # fmt: skip
PUBLIC_SCHEMA = struct(schema=ANY, source=ANY, frozen_at=ANY, records=list_of(PUBLIC_RECORD))
BUNDLE_ANSWER = struct(
    id=ANY, split=ANY, state=ANY, labels=ANY, references=ANY, duplicate_targets=ANY, scope_contradictions=ANY
)
BUNDLE_AGGREGATES = struct(
    state_counts=MAP, label_counts=MAP, newest_issue_ids=ANY, most_recently_updated_issue_ids=ANY
)
BUNDLE_SCHEMA = struct(schema=ANY, corpus_sha256=ANY, answers=list_of(BUNDLE_ANSWER), aggregates=BUNDLE_AGGREGATES)


def _unusable(path: Path, exc: gojson.JSONInputError, *, records: bool = False) -> UnusableInput:
    """A JSON problem as one line naming the file and the place (`record N` in a dump)."""
    place = gojson.format_path(exc.path)
    if records and exc.path and isinstance(exc.path[0], int):
        rest = gojson.format_path(exc.path[1:])
        place = f"record {exc.path[0]}" + (f", field '{rest}'" if rest else "")
    head = f"{place}: " if place else ""
    tail = f" ({exc.where})" if exc.where else ""
    return UnusableInput(f"{path}: {head}{'not JSON: ' if exc.syntax else ''}{exc.reason}{tail}")


def read_json_file(path: Path, schema: Any = ANY, *, records: bool = False) -> Any:
    """A JSON file decoded as Go decodes it (into `schema`); UnusableInput names the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return gojson.loads(data, schema)
    except gojson.JSONInputError as exc:
        raise _unusable(path, exc, records=records) from None


def _raise_strict(check: StrictCheck | None, path: Path, *, records: bool = False) -> None:
    """Go's decoder checks the whole syntax before anything else: so does this."""
    problem = check.problem() if check is not None else None
    if problem is not None:
        raise _unusable(path, problem, records=records)


def _read(con: duckdb.DuckDBPyConnection, path: Path, step: str, check: str | None = None) -> bool:
    """Run the reading step; False when DuckDB refused the file or Go would read it otherwise."""
    if not path.is_file():
        raise not_a_file(path)
    con.execute("SET VARIABLE input_path = ?", [str(path)])
    con.execute("SET VARIABLE max_object_size = ?", [path.stat().st_size + 1024])
    try:
        run_steps(con, [step] if check is None else [step, check])
    except duckdb.OutOfMemoryException:
        raise  # not a file DuckDB refuses: decoding it in Python would take more memory still
    except (duckdb.Error, UnicodeError):  # (DuckDB's message may quote bytes that are not UTF-8)
        return False
    return check is None or not next(iter(rows(con, f"SELECT * FROM {Path(check).name}")[0].values()))


def _fill(con: duckdb.DuckDBPyConnection, table: str, values: list[tuple[int, Any]]) -> None:
    """Put Go-decoded JSON values into `table` (record, j), re-encoded as clean JSON."""
    import pyarrow as pa  # only for inputs DuckDB refused: the usual path never loads pyarrow here

    incoming = pa.table(
        {
            "record": pa.array([r for r, _ in values], pa.int64()),
            "j": pa.array([json.dumps(v, ensure_ascii=False) for _, v in values], pa.string()),
        }
    )
    register(con, {"incoming_json": incoming})
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT record, CAST(j AS JSON) AS j FROM incoming_json ORDER BY record")
    con.execute("DROP TABLE incoming_json")


def drop(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Drop loader scratch tables or views that exist."""
    kinds = dict(
        con.execute(
            "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
    )
    for name in names:
        if name in kinds:
            con.execute(f"DROP {'VIEW' if kinds[name] == 'VIEW' else 'TABLE'} {name}")


def _raise_first_problem(con: duckdb.DuckDBPyConnection, path: Path, table: str, schema_hint: str = "") -> None:
    first = con.execute(f"SELECT problem FROM {table} LIMIT 1").fetchall()
    if first:
        hint = schema_hint if first[0][0].startswith("field 'schema'") else ""
        raise UnusableInput(f"{path}: {first[0][0]}{hint}")


def _public_hint(con: duckdb.DuckDBPyConnection) -> str:
    """What a file given as a public corpus is instead, when its schema names another document."""
    found = con.execute("SELECT schema->>'$' FROM public_document WHERE kind = 'OBJECT'").fetchall()
    return swapped_hint(found[0][0], CORPUS_SCHEMA) if found else ""


DOCUMENT_MEMORY_FACTOR = 12  # DuckDB needs about this many bytes of memory per byte of one JSON document


# Decoding in Python costs some fifty times a file's size in memory: an answer bundle or a
# submission that needs it (a lone surrogate escape, invalid UTF-8, a key that only Go's
# Unicode folding matches; never one that freeze wrote) is decoded so up to this size, and
# refused beyond it, so that no submission can take a grader's memory that way.
PYTHON_DECODING_BYTES = 16 * 2**20


def _read_document(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    kind: str,
    check: str | None,
    schema: Any,
    go_decoding: bool = False,
    python_most: int | None = None,
) -> None:
    """`{kind}_document`: the file's top-level fields, by DuckDB or else (or with
    go_decoding) as Go decodes it into `schema`, for a file of at most python_most bytes.

    A JSON document is parsed whole, so for a large one the memory limit is raised for
    the read (to about 4 GB for a 100,000-record public corpus) and then restored."""
    needed_mb = DOCUMENT_MEMORY_FACTOR * path.stat().st_size // 2**20 if path.is_file() else 0
    configured_mb = memory_limit_mb(con)
    raise_limit = 0 < configured_mb < needed_mb
    try:
        if raise_limit:
            con.execute(f"SET memory_limit = '{needed_mb}MB'")
        if go_decoding or not _read(con, path, f"{kind}/{kind}_document", check):
            if python_most is not None and path.is_file() and path.stat().st_size > python_most:
                raise UnusableInput(
                    f"{path}: it needs Go's decoding in Python (a lone surrogate escape, invalid UTF-8 or a key in "
                    f"another letter case), which is done for files of at most {python_most // 2**20} MiB"
                )  # fmt: skip
            _fill(con, "document_json", [(0, read_json_file(path, schema))])
            run_steps(con, [f"{kind}/decoded/{kind}_document"])
            con.execute("DROP TABLE document_json")
    finally:
        if raise_limit:
            con.execute("SET memory_limit = ?", [memory_limit()])


def _threads(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])


def load_raw(con: duckdb.DuckDBPyConnection, path: Path, min_records: int) -> None:
    """docs/format.md §1: check a raw dump and load `raw_issues`."""
    run_steps(con, ["macros"])
    if not path.is_file():
        raise not_a_file(path)
    con.execute("SET VARIABLE min_records = ?", [min_records])
    # beside DuckDB's read; and a key that Go's Unicode folding takes for a field, which
    # DuckDB's reader cannot see when its value is null (a repeat of that field, refused)
    strict = StrictCheck(path, None, RAW_SCHEMA[0])
    with scratch_directory("s8f-duck-raw-") as scratch:
        parts = array_parts(path, 0, path.stat().st_size, scratch, _threads(con))
        read = _read_raw(con, path, parts, numbered=False)
        _raise_strict(strict, path, records=True)
        read = read and not _has_rows(con, "raw_problems") and not strict.folded_keys
    if not read:  # read again, numbered: the rows' positions name the problems
        _read_raw(con, path, [path], numbered=True, go_decoding=strict.folded_keys)
        _raise_first_problem(con, path, "raw_problems")
    for column in ("problems", "record", "folded_key"):
        con.execute(f"ALTER TABLE raw_issues DROP COLUMN {column}")
    drop(con, "raw_problems", "raw_fields", "raw_values")


def _read_raw(
    con: duckdb.DuckDBPyConnection, path: Path, parts: list[Path], *, numbered: bool, go_decoding: bool = False
) -> bool:
    """raw_issues and raw_problems from the dump's parts (one or more files), numbered or
    not (faster, and on every core); numbered, the Go-decoded dump when DuckDB refuses
    it. False when DuckDB refuses the parts unnumbered."""
    con.execute("SET VARIABLE input_path = ?", [[str(part) for part in parts]])
    try:
        run_steps(con, ["raw/raw_fields" if numbered else "raw/parts/raw_fields", RAW_STEPS[1]])
        go_decoding = go_decoding or bool(con.execute("SELECT bool_or(folded_key) FROM raw_issues").fetchall()[0][0])
    except (duckdb.Error, UnicodeError):  # refused by DuckDB's reader, or read otherwise by Go
        go_decoding = True
    if go_decoding:  # (or a key that Go's Unicode folding takes for a field)
        drop(con, "raw_fields", "raw_issues")
        if not numbered:
            return False
        values = read_json_file(path, RAW_SCHEMA, records=True)
        if not isinstance(values, list):
            raise UnusableInput(f"{path}: expected a JSON array of issues, got {gojson.type_name(values)}") from None
        _fill(con, "raw_values", list(enumerate(values)))
        run_steps(con, ["raw/decoded/raw_fields", RAW_STEPS[1]])
    run_steps(con, RAW_STEPS[2:])
    return True


def _has_rows(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return bool(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])


def _read_split(
    con: duckdb.DuckDBPyConnection, path: Path, kind: str, key: str, items: str, parts: int, then: Sequence[str] = (),
    items_step: str | None = None, span: tuple[int, int] | None = None, before_items: Callable[[], None] = lambda: None,
) -> bool:
    """`{kind}_document` and the table (or view) of `items` from a document with a large array
    member `key`, read as separate files: the document with that array emptied (checked
    like the whole file), and the array itself, in up to `parts` parts, which DuckDB reads
    element by element instead of parsing the whole document as one value. False
    (nothing loaded) when the document has another shape or DuckDB refuses a part: the
    caller then reads it whole. The parts are valid JSON exactly when the document is:
    putting a valid array in the place of the empty one gives a valid document, and the
    emptied document is valid only if the cut is at the member's own brackets. The steps
    `then` run while the parts exist (a view of `items` reads them). items_step: the step
    that reads them (by default `{kind}/split/{items}`); span: the member's, when known;
    before_items: called just before that step."""
    span = span or (array_member_span(path, key) if path.is_file() else None)
    if span is None:
        return False
    start, end = span
    with scratch_directory(f"s8f-duck-{kind}-") as scratch:
        emptied = scratch / "emptied.json"
        copy_range(path, emptied, 0, start + 1, suffix=b"]")
        with open(emptied, "ab") as out, open(path, "rb") as rest:
            rest.seek(end)
            out.write(rest.read())
        elements = array_parts(path, start, end, scratch, parts)
        read = _read(con, emptied, f"{kind}/{kind}_document", f"{kind}/{kind}_decoding")
        if read:
            con.execute("SET VARIABLE input_path = ?", [[str(part) for part in elements]])
            before_items()
            try:
                run_steps(con, [items_step or f"{kind}/split/{items}", *then])
            except (duckdb.Error, UnicodeError):
                read = False
    if not read:
        drop(con, f"{kind}_document", f"{kind}_decoding", items)
    return read


def load_public(con: duckdb.DuckDBPyConnection, path: Path, *, strict_check: bool = True) -> dict[str, Any]:
    """A public corpus as freeze input (`raw_issues`, empty `redactions`);
    returns its header fields (schema, source, frozen_at, records). Without
    strict_check, the caller answers for checking the file as Go reads it
    (check_public_strictly), before it reports anything else about the file."""
    run_steps(con, ["macros"])
    strict = StrictCheck(path, "records") if path.is_file() and strict_check else None  # beside DuckDB's read
    read = _read_split(con, path, "public", "records", "public_records", _threads(con), PUBLIC_STEPS[1:3])
    _raise_strict(strict, path)
    if not read or _has_rows(con, "public_problems"):  # read whole: the records' positions name the problems
        drop(con, "public_records")
        _read_document(con, path, "public", "public/public_decoding", PUBLIC_SCHEMA)
        run_steps(con, PUBLIC_STEPS[:3])
        _raise_first_problem(con, path, "public_problems", _public_hint(con))
    con.execute("ALTER TABLE raw_issues DROP COLUMN problems")
    con.execute("ALTER TABLE raw_issues DROP COLUMN record")
    run_steps(con, PUBLIC_STEPS[3:])
    con.execute("CREATE OR REPLACE TABLE redactions (rule BIGINT, pattern VARCHAR, literal VARCHAR)")  # none: the text is scrubbed
    drop(con, "public_document", "public_decoding", "public_records", "public_problems")
    header = rows(con, "SELECT * FROM public_header")[0]
    if "\ufffd" in (header["source"] or ""):
        header["source"] = _source_as_written(path, header["source"])
    return header


def check_public_strictly(path: Path) -> None:
    """UnusableInput where a public corpus stops being JSON as Go reads it (load_public's
    check, on its own)."""
    _raise_strict(StrictCheck(path, "records") if path.is_file() else None, path)


_HEAD_SOURCE = re.compile(rb'\A\{\s*"schema":\s*"(?:[^"\\]|\\.)*",\s*"source":\s*("(?:[^"\\]|\\.)*")')
_ESCAPED_REPLACEMENT = re.compile(r"(\\\\)|\\u[fF]{3}[dD]")


def _source_as_written(path: Path, decoded: str) -> str:
    """The corpus source, with each U+FFFD that the file writes as the escape `\\ufffd`
    (as Go writes an invalid UTF-8 byte of the source) kept apart from a U+FFFD written as
    itself: as a lone surrogate, which gojson.encode_string writes as `\\ufffd` again. So
    a corpus frozen from a source that was not UTF-8 re-derives to its own bytes."""
    with open(path, "rb") as f:
        found = _HEAD_SOURCE.match(f.read(1 << 20))
    if found is None:
        return decoded
    token = found.group(1).decode("utf-8", errors="s8f_go_replace")
    return json.loads(_ESCAPED_REPLACEMENT.sub(lambda m: m.group(1) or "\\udcff", token))


def _load_checked_answers(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """bundle_document and bundle_answers, every value checked (the first problem raised)."""
    run_steps(con, ["macros/reading"])
    # beside DuckDB's read: the syntax, and keys that Go's Unicode folding takes for fields
    strict = StrictCheck(path, "answers", BUNDLE_ANSWER, BUNDLE_SCHEMA) if path.is_file() else None
    read = _read_split(con, path, "bundle", "answers", "bundle_items", 1)  # 1: positions count in grading
    _raise_strict(strict, path)
    folded = strict is not None and strict.folded_keys
    if not read or folded:
        drop(con, "bundle_document", "bundle_decoding", "bundle_items")
        _read_document(con, path, "bundle", "bundle/bundle_decoding", BUNDLE_SCHEMA, go_decoding=folded,
                       python_most=PYTHON_DECODING_BYTES)  # fmt: skip
        run_steps(con, BUNDLE_STEPS[:1])
    run_steps(con, BUNDLE_STEPS[1:3])
    _raise_first_problem(con, path, "bundle_problems")
    con.execute("ALTER TABLE bundle_answers DROP COLUMN problems")


def check_answer_bundle(
    con: duckdb.DuckDBPyConnection, path: Path, schema: str, expect_schema: str, answers: str
) -> None:
    """An answer bundle's schema is the one expected, and it has one answer per record (the
    grade pairs them by id): else the first repeat is named."""
    if schema != expect_schema:
        raise UnusableInput(f"{path}: field 'schema' is {schema!r}, expected {expect_schema!r}"
                            f"{swapped_hint(schema, expect_schema)}")  # fmt: skip
    if con.execute(f"SELECT count(DISTINCT id) < count(*) FROM {answers}").fetchall()[0][0]:  # which, only if any
        repeat = con.execute(
            f"SELECT id, list(pos ORDER BY pos)[1:2] FROM {answers} GROUP BY id HAVING count(*) > 1 "
            "ORDER BY min(pos) LIMIT 1"
        ).fetchall()
        if repeat:
            (rid, (first, second)) = repeat[0]
            raise UnusableInput(f"{path}: answers[{second}] repeats the id {rid!r} of answers[{first}]")


def load_bundle(con: duckdb.DuckDBPyConnection, path: Path, prefix: str, expect_schema: str | None) -> str:
    """An answer bundle or submission as tables `{prefix}answers`, `{prefix}state_counts`,
    `{prefix}label_counts`, `{prefix}newest_issue_ids`, `{prefix}most_recently_updated_issue_ids`;
    returns the corpus digest it is bound to."""
    run_steps(con, ["macros/grading"])
    typed = TypedCheck(path)  # beside DuckDB's typed read: whether there is anything to check
    if not (
        typed.span is not None
        and _read_split(
            con, path, "bundle", "answers", "bundle_answers", 1, items_step="bundle/typed/bundle_answers",
            span=typed.span, before_items=typed.start,
        )
        and typed.passed()
    ):
        drop(con, "bundle_document", "bundle_decoding", "bundle_answers")
        _load_checked_answers(con, path)
    run_steps(con, BUNDLE_STEPS[3:])
    header = rows(con, "SELECT * FROM bundle_header")[0]
    if expect_schema is not None:
        check_answer_bundle(con, path, header["schema"], expect_schema, "bundle_answers")
    (schema,) = con.execute("SELECT current_schema()").fetchall()[0]  # never fall through to main
    for name in BUNDLE_TABLES:
        con.execute(f'DROP TABLE IF EXISTS "{schema}"."{prefix}{name}"')
        con.execute(f'ALTER TABLE "{schema}".bundle_{name} RENAME TO "{prefix}{name}"')
    drop(con, "bundle_document", "bundle_decoding", "bundle_items", "bundle_problems", "bundle_header")
    return header["corpus_sha256"]
