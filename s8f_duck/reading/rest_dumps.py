"""GitHub's REST issue objects read into `raw_issues`, as load.load_raw reads a gh dump.

First, msgspec cuts the fields read out of the dump, strictly, and hands them to DuckDB as
Arrow batches (rest_batches.py): the dump is parsed once, with record positions. Where
that reading cannot take the dump, the dump is checked as Go reads JSON (strictness.py)
and read by DuckDB's own reader: on every core first (a JSON array cut into parts between
records, pages cut between pages, JSON Lines, which DuckDB cuts itself), without record
positions; when that finds a problem or DuckDB refuses the bytes, again whole with
positions to name the record, or else as Go decodes them. sql/raw/rest/ reads the objects
(rest_objects) and maps them to gh's records, dropping the pull requests (raw_fields);
raw_issues and raw_problems then check and type them as they do gh's. The dump's form is
told by input_forms.py.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import duckdb

from s8f_duck.pipeline.steps import run_steps
from s8f_duck.reading import gojson, split, strictness
from s8f_duck.reading.load import _fill, _has_rows, _threads, _unusable, drop
from s8f_duck.reading.split import SEPARATOR_WINDOW, array_parts, copy_range
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.scratch import scratch_directory

if TYPE_CHECKING:
    from s8f_duck.reading.dump import Dump

REST_STEPS = (
    "raw/rest/batches/rest_objects",
    "raw/rest/batches/raw_fields",
    "raw/rest/parts/rest_objects",
    "raw/rest/pages/parts/rest_objects",
    "raw/rest/rest_objects",
    "raw/rest/pages/rest_objects",
    "raw/rest/decoded/rest_objects",
    "raw/rest/raw_fields",
)
# What rest_objects reads of an object (the Go-decoded path keeps only these).
REST_FIELDS = ("number", "title", "body", "state", "html_url", "labels", "created_at", "updated_at", "closed_at",
               "pull_request")  # fmt: skip
# raw_issues names gh's fields; of a REST object these are read in their place.
REST_NAMES = {"url": "html_url", "createdAt": "created_at", "updatedAt": "updated_at", "closedAt": "closed_at"}
JSON_SPACE = " \t\r\n"


def skip_space(text: str, pos: int) -> int:
    """The position of the first character at or after pos that is not JSON whitespace."""
    while pos < len(text) and text[pos] in JSON_SPACE:
        pos += 1
    return pos


def load_rest(con: duckdb.DuckDBPyConnection, dump: Dump, min_records: int) -> int:
    """`raw_issues` from a REST dump, as load.load_raw leaves it; returns how many pull
    requests were dropped. Problems name the REST fields."""
    run_steps(con, ["macros"])
    con.execute("SET VARIABLE min_records = ?", [min_records])
    if _read_batches(con, dump):
        _raise_first_problem(con, dump)
    else:
        _read_otherwise(con, dump)
    (dropped,) = con.execute(
        "SELECT coalesce(last_value, 0) FROM duckdb_sequences() "
        "WHERE sequence_name = 'pull_requests_dropped' AND schema_name = current_schema()"
    ).fetchall()[0]
    for column in ("problems", "record", "folded_key"):  # as load.load_raw leaves raw_issues
        con.execute(f"ALTER TABLE raw_issues DROP COLUMN {column}")
    drop(con, "raw_problems", "raw_fields", "rest_fields", "rest_objects", "raw_values")
    con.execute("DROP SEQUENCE pull_requests_dropped")
    return int(dropped)


def _read_batches(con: duckdb.DuckDBPyConnection, dump: Dump) -> bool:
    """raw_issues and raw_problems from the batches msgspec cuts out of the dump; False
    (nothing left) where that reading cannot take it (rest_batches.NotHere)."""
    from s8f_duck.reading import rest_batches  # (it imports pyarrow: only for a REST dump)

    try:
        con.register("rest_batches", rest_batches.batches(dump.plain, dump.container, dump.first_key))
    except rest_batches.NotHere:
        return False
    # DuckDB reads the stream on one thread, while msgspec decodes the next blocks on
    # another (rest_batches._ahead): more DuckDB threads only take the cores from it.
    threads = _threads(con)
    con.execute("SET threads = 1")
    try:
        run_steps(con, [REST_STEPS[0], REST_STEPS[7], REST_STEPS[1], "raw/raw_issues"])
    except (duckdb.Error, UnicodeError, rest_batches.NotHere):  # (refused by msgspec, or a field by DuckDB: not UTF-8)
        drop(con, "raw_issues", "raw_fields", "rest_fields", "rest_objects")
        return False
    finally:
        con.execute(f"SET threads = {threads}")
        con.unregister("rest_batches")
    run_steps(con, ["raw/raw_problems"])
    return True


def _raise_first_problem(con: duckdb.DuckDBPyConnection, dump: Dump) -> None:
    problem = con.execute("SELECT problem FROM raw_problems LIMIT 1").fetchall()
    if problem:
        rest_names = re.sub(r"field '(\w+)'", lambda m: f"field '{REST_NAMES.get(m[1], m[1])}'", problem[0][0])
        raise UnusableInput(f"{dump.path}: {rest_names}")


def _read_otherwise(con: duckdb.DuckDBPyConnection, dump: Dump) -> None:
    """raw_issues and raw_problems by DuckDB's reader (or as Go decodes the dump), after
    the check that the dump is JSON as Go reads it; UnusableInput names a problem."""
    from s8f_duck.reading import rest_batches

    if dump.container == "array":
        problem = strictness.StrictCheck(dump.plain).problem()
    else:
        problem = strictness.stream_problem(dump.plain, rest_batches.cuts(dump.plain, dump.container, dump.first_key))
    if problem is not None:
        raise _unusable(dump.path, problem, records=dump.container != "pages")
    pages = dump.container == "pages"
    with scratch_directory("s8f-duck-raw-") as scratch:
        threads = _threads(con)
        if pages:
            parts, json_format = _page_parts(dump.plain, scratch, threads), "unstructured"
        elif dump.container == "lines":  # DuckDB reads JSON Lines on every core itself
            parts, json_format = [dump.plain], "newline_delimited"
        else:
            size = dump.plain.stat().st_size
            parts, json_format = array_parts(dump.plain, 0, size, scratch, threads, dump.first_key), "array"
        first = REST_STEPS[3] if pages else REST_STEPS[2]
        read = _read_rest(con, parts, first, json_format) and not _has_rows(con, "raw_problems")
    if not read:  # again with record positions, whole (objects spanning lines are JSON Lines to Go)
        numbered = REST_STEPS[5] if pages else REST_STEPS[4]
        if not _read_rest(con, [dump.plain], numbered, "array" if dump.container == "array" else "unstructured"):
            _fill(con, "raw_values", list(enumerate(_decoded_records(dump))))
            run_steps(con, [REST_STEPS[6], REST_STEPS[7], "raw/raw_issues", "raw/raw_problems"])
        _raise_first_problem(con, dump)


def _read_rest(con: duckdb.DuckDBPyConnection, paths: list[Path], read_step: str, json_format: str) -> bool:
    """raw_issues and raw_problems through read_step; False when DuckDB refuses the bytes."""
    con.execute("SET VARIABLE input_path = ?", [[str(p) for p in paths]])
    con.execute("SET VARIABLE input_json_format = ?", [json_format])
    try:
        run_steps(con, [read_step, REST_STEPS[7], "raw/raw_issues"])
    except duckdb.Error:
        drop(con, "raw_issues", "raw_fields", "rest_objects")
        return False
    run_steps(con, ["raw/raw_problems"])
    return True


PAGE_BREAK = re.compile(rb"\][ \t\r\n]*\[")


def _page_break_near(f: BinaryIO, position: int, end: int) -> int | None:
    """The offset just past a ']' at or after position that ends one page before the next
    begins: one that starts a line (indented pages: a new line is never inside a JSON
    string, and nested arrays close indented), or else one between '}' and '{' (compact
    pages; a candidate only, as a string may hold it)."""
    f.seek(position)
    window = f.read(min(SEPARATOR_WINDOW, end - position))
    compact = None
    for match in PAGE_BREAK.finditer(window):
        at = match.start()
        if at > 0 and window[at - 1 : at] == b"\n":
            return position + at + 1
        before, after = window[max(0, at - 64) : at].rstrip()[-1:], window[match.end() : match.end() + 64].lstrip()[:1]
        if compact is None and before == b"}" and after == b"{":
            compact = position + at + 1
    return compact


def _page_parts(source: Path, scratch: Path, parts: int) -> list[Path]:
    """Pages cut between two pages into up to `parts` files of consecutive pages, read on
    several cores. Only a candidate split, as for split.array_parts: a cut inside a
    string leaves a part whose string is not closed, which DuckDB refuses."""
    size = source.stat().st_size
    cuts: list[int] = []
    if size >= 2 * split.PART_MIN_BYTES:
        with open(source, "rb") as f:
            for k in range(1, parts):
                cut = _page_break_near(f, max(size * k // parts, cuts[-1] + 1 if cuts else 0), size)
                if cut is not None:
                    cuts.append(cut)
    if not cuts:
        return [source]
    bounds = [0, *cuts, size]
    files = [scratch / f"pages-{i}.json" for i in range(len(bounds) - 1)]
    with ThreadPoolExecutor(len(files)) as pool:
        list(pool.map(lambda i: copy_range(source, files[i], bounds[i], bounds[i + 1]), range(len(files))))
    return files


def _decoded_records(dump: Dump) -> list[Any]:
    """The dump's records as Go decodes its values one after another (an array, pages or
    JSON Lines), each object cut to what rest_objects reads."""
    try:
        text = dump.plain.read_bytes().decode("utf-8", errors="s8f_go_replace")  # gojson's replacement
    except OSError as exc:
        raise UnusableInput(f"{dump.path}: cannot read: {exc.strerror or exc}") from None
    decoder = json.JSONDecoder()
    values: list[Any] = []
    pos = skip_space(text, 0)
    while pos < len(text):
        try:
            _, end = decoder.raw_decode(text, pos)
        except ValueError as exc:
            raise UnusableInput(f"{dump.path}: not JSON: {exc}") from None
        try:  # each value again, as gojson decodes a file: its rules apply to it
            values.append(gojson.loads(text[pos:end].encode()))
        except gojson.JSONInputError as exc:
            raise UnusableInput(f"{dump.path}: {exc}") from None
        pos = skip_space(text, end)
    del text
    arrays = [isinstance(v, list) for v in values]
    if any(arrays) and not all(arrays):
        i = arrays.index(not arrays[0])
        raise UnusableInput(f"{dump.path}: value {i} is {gojson.type_name(values[i])} where value 0 is "
                            f"{gojson.type_name(values[0])}: expected a JSON array, pages of arrays, or objects "
                            "one after another (JSON Lines), not a mix")  # fmt: skip
    records = [r for page in values for r in page] if any(arrays) else values
    return [{k: r[k] for k in REST_FIELDS if k in r} if isinstance(r, dict) else r for r in records]
