"""The forms a raw dump comes in, told apart by its content, and the reading of GitHub's
REST form into the same `raw_issues` as a `gh issue list --json` array.

- the `gh issue list --json ...` array (load.load_raw reads it);
- GitHub's REST issue objects (`GET /repos/OWNER/REPO/issues`) as one JSON array, as
  pages of arrays one after another (`gh api --paginate` without `--slurp`), or as JSON
  Lines; sql/raw/rest/raw_fields.sql maps them to gh's records and drops the pull
  requests, and raw_issues checks and types them as it does gh's;
- any of these gzip-compressed (decompressed into a scratch file first).

The form is told from the first records of the file (SAMPLE_BYTES of it); a dump holds
one form. The REST objects are read as gh's are: on every core first, without record
positions, and when that finds a problem or DuckDB refuses the bytes, again with
positions to name the record, or else as Go decodes them.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import duckdb

from . import gojson, split
from .errors import UnusableInput
from .load import _fill, _has_rows, _threads, drop, load_raw
from .scratch import scratch_directory
from .split import SEPARATOR_WINDOW, array_parts, copy_range
from .steps import run_steps

INPUT_FORMATS = ("auto", "gh", "rest")
EXPECTED = (
    "expected a JSON array of `gh issue list --json` records, or GitHub REST issue objects "
    "(GET /repos/OWNER/REPO/issues) as a JSON array, as pages of arrays or as JSON Lines, "
    "any of them possibly gzip-compressed"
)
FORM_NAMES = {"gh": "a `gh issue list --json` record", "rest": "a GitHub REST issue object"}
GH_KEYS = ("createdAt", "updatedAt", "closedAt")
REST_KEYS = ("html_url", "created_at", "updated_at", "closed_at", "pull_request")
# What rest_objects reads of an object (the Go-decoded path keeps only these).
REST_FIELDS = ("number", "title", "body", "state", "html_url", "labels", "created_at", "updated_at", "closed_at",
               "pull_request")  # fmt: skip
# raw_issues names gh's fields; of a REST object these are read in their place.
REST_NAMES = {"url": "html_url", "createdAt": "created_at", "updatedAt": "updated_at", "closedAt": "closed_at"}

SAMPLE_BYTES = 1 << 18  # the head of the file whose records tell the form
PAGE_END_SEARCH = 64 << 20  # how far a first record or page too long for the sample is looked through
COMPACT_PAGE_SEARCH = 16 << 20  # how much of a compact file is parsed to find where its first page ends
GZIP_MAGIC = b"\x1f\x8b"
JSON_SPACE = " \t\r\n"

REST_STEPS = (
    "raw/rest/parts/rest_objects",
    "raw/rest/pages/parts/rest_objects",
    "raw/rest/rest_objects",
    "raw/rest/pages/rest_objects",
    "raw/rest/decoded/rest_objects",
    "raw/rest/raw_fields",
)


@dataclass
class Dump:
    """A raw dump as it will be read."""

    path: Path  # the file given (messages name it)
    plain: Path  # its JSON bytes: the file itself, or the decompressed copy of a gzip file
    form: str  # "gh" or "rest"
    container: str  # "array", "pages" or "lines"
    certain: bool  # whether the form was given or told from the content (else gh, as dumps always were)
    issue_bytes: int | None  # about how large the issues are in gh's form (the work database's size)
    first_key: bytes | None = None  # the JSON-encoded key the first record begins with (where to cut arrays)


@contextmanager
def opened(path: Path, input_format: str = "auto") -> Iterator[Dump]:
    """The dump at path, decompressed when it is gzip, with its form; UnusableInput for a
    corrupt gzip file or a form that is none of the expected ones."""
    if input_format not in INPUT_FORMATS:
        raise UnusableInput(f"--input-format must be one of {', '.join(INPUT_FORMATS)}, not {input_format!r}")
    if not path.is_file():  # load_raw names it
        yield Dump(path, path, "gh", "array", False, None)
        return
    with open(path, "rb") as f:
        compressed = f.read(len(GZIP_MAGIC)) == GZIP_MAGIC
    if not compressed:
        yield _detect(path, path, input_format)
        return
    with scratch_directory("s8f-duck-input-") as scratch:
        yield _detect(path, _decompressed(path, scratch), input_format)


def _decompressed(path: Path, scratch: Path) -> Path:
    target = scratch / path.name.removesuffix(".gz")
    try:
        with gzip.open(path, "rb") as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 24)
    except (OSError, EOFError, zlib.error) as exc:
        raise UnusableInput(f"{path}: not a valid gzip file: {exc}") from None
    return target


@dataclass
class _Sample:
    container: str | None  # None: not made out from the sample
    records: list[Any]  # the first records, whole, in order
    chars: int  # how many characters of the file they span


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in JSON_SPACE:
        pos += 1
    return pos


def _sample(text: str, whole: bool) -> _Sample:
    """The first records of text (the file's head, or all of it when whole)."""
    decoder = json.JSONDecoder()
    records: list[Any] = []
    start = pos = _skip(text, 0)
    if pos == len(text) or text[pos] not in "[{":
        return _Sample(None, [], 0)
    if text[pos] == "{":  # objects one after another: JSON Lines
        while pos < len(text):
            try:
                value, pos = decoder.raw_decode(text, pos)
            except ValueError:
                break
            records.append(value)
            pos = _skip(text, pos)
        return _Sample("lines", records, pos - start)
    pos = _skip(text, pos + 1)
    while pos < len(text) and text[pos] != "]":
        try:
            value, end = decoder.raw_decode(text, pos)
        except ValueError:
            return _Sample(None, records, pos - start)
        records.append(value)
        pos = _skip(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)
        elif pos >= len(text) or text[pos] != "]":
            return _Sample(None, records, pos - start)
    if pos >= len(text):
        return _Sample(None, records, pos - start)
    after = _skip(text, pos + 1)
    container = "pages" if after < len(text) and text[after] == "[" else "array" if after == len(text) and whole else None
    return _Sample(container, records, pos + 1 - start)


def _form_of(record: Any) -> str | None:
    """'gh', 'rest', 'both' (keys of each) or None (an object with neither's, or no object)."""
    if not isinstance(record, dict):
        return None
    gh, rest = any(k in record for k in GH_KEYS), any(k in record for k in REST_KEYS)
    return "both" if gh and rest else "gh" if gh else "rest" if rest else None


def _detect(path: Path, plain: Path, input_format: str) -> Dump:
    size = plain.stat().st_size
    if input_format == "gh":
        return Dump(path, plain, "gh", "array", True, size)
    window = SAMPLE_BYTES
    while True:  # a first record longer than the sample: a longer one
        with open(plain, "rb") as f:
            head = f.read(window)
        sample = _sample(head.decode("utf-8", errors="replace"), whole=len(head) == size)
        if sample.records or len(head) == size or window >= PAGE_END_SEARCH:
            break
        window *= 8
    forms = [_form_of(r) for r in sample.records]
    for i, form in enumerate(forms):
        if form == "both":
            raise UnusableInput(f"{path}: record {i} has the keys of both forms ({GH_KEYS[0]} and {REST_KEYS[1]}): "
                                f"{EXPECTED}")  # fmt: skip
        if form is not None and forms[0] is not None and form != forms[0]:
            raise UnusableInput(f"{path}: record {i} is {FORM_NAMES[form]} but record 0 is {FORM_NAMES[forms[0]]}: "
                                f"a dump holds one form ({EXPECTED})")  # fmt: skip
    first = sample.records[0] if sample.records else None
    if input_format == "rest" or forms[:1] == ["rest"]:
        container = sample.container or ("array" if head.lstrip(JSON_SPACE.encode())[:1] != b"{" else "lines")
        if container == "array" and sample.container is None and len(head) < size:
            container = "pages" if _second_page_follows(plain, indented=b"\n" in head) else "array"
        first_key = json.dumps(next(iter(first)), ensure_ascii=False).encode() if isinstance(first, dict) and first else None
        return Dump(path, plain, "rest", container, True, _issue_bytes(sample, size), first_key)
    if isinstance(first, dict) and forms[0] is None:
        raise UnusableInput(f"{path}: {EXPECTED}; record 0 is an object with neither form's keys "
                            f"({', '.join(GH_KEYS)}; {', '.join(REST_KEYS)})")  # fmt: skip
    if forms[:1] == ["gh"] and sample.container in ("pages", "lines"):
        raise UnusableInput(f"{path}: `gh issue list --json` records must be one JSON array, not "
                            f"{'pages of arrays' if sample.container == 'pages' else 'JSON Lines'} ({EXPECTED})")  # fmt: skip
    return Dump(path, plain, "gh", "array", forms[:1] == ["gh"], size)


def _second_page_follows(path: Path, *, indented: bool) -> bool:
    """Whether the first array of a file, longer than the sample, is followed by another.
    Indented, a line that starts with ']' then '[' ends a page and begins the next (a new
    line is never inside a JSON string, and nested arrays close indented); compact, the
    first array is parsed, up to COMPACT_PAGE_SEARCH (a longer one is taken for the array)."""
    with open(path, "rb") as f:
        if not indented:
            return _sample(f.read(COMPACT_PAGE_SEARCH).decode("utf-8", errors="replace"), whole=False).container == "pages"
        block = f.read(PAGE_END_SEARCH)
    at = block.find(b"\n]")
    while at >= 0:
        if block[at + 2 :].lstrip(JSON_SPACE.encode())[:1] == b"[":
            return True
        at = block.find(b"\n]", at + 2)
    return False


def _issue_bytes(sample: _Sample, size: int) -> int:
    """About how large the dump's issues are in gh's form: the sampled issues' share of
    the sample, of the whole file (REST objects carry much else, and pull requests)."""
    if not sample.chars or not sample.records:
        return size
    issues = [r for r in sample.records if isinstance(r, dict) and not _is_pull_request(r)]
    gh_chars = sum(
        len(json.dumps([r.get(k) for k in ("number", "title", "body", "state", "labels", "created_at", "updated_at",
                                           "closed_at", "html_url")], ensure_ascii=False))  # fmt: skip
        for r in issues
    )
    return max(1, size * gh_chars // sample.chars)


def _is_pull_request(record: dict[str, Any]) -> bool:
    """For the size estimate only; the rule itself is sql/raw/rest/raw_fields.sql."""
    pull = record.get("pull_request")
    return isinstance(pull, dict) and pull.get("html_url") is not None


def load(con: duckdb.DuckDBPyConnection, dump: Dump, min_records: int) -> int:
    """`raw_issues` from the dump, as load.load_raw leaves it; returns how many pull
    requests were dropped. Messages name the file given and the REST fields."""
    try:
        if dump.form == "gh":
            load_raw(con, dump.plain, min_records)
            return 0
        return _load_rest(con, dump, min_records)
    except UnusableInput as exc:
        message = str(exc).replace(str(dump.plain), str(dump.path))
        if not dump.certain and dump.plain.is_file():
            message += f" ({EXPECTED})"
        if message == str(exc):
            raise
        raise UnusableInput(message) from None


def _load_rest(con: duckdb.DuckDBPyConnection, dump: Dump, min_records: int) -> int:
    run_steps(con, ["macros"])
    con.execute("SET VARIABLE min_records = ?", [min_records])
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
        first = REST_STEPS[1] if pages else REST_STEPS[0]
        read = _read_rest(con, parts, first, json_format) and not _has_rows(con, "raw_problems")
    if not read:  # again with record positions, whole (objects spanning lines are JSON Lines to Go)
        numbered = REST_STEPS[3] if pages else REST_STEPS[2]
        if not _read_rest(con, [dump.plain], numbered, "array" if dump.container == "array" else "unstructured"):
            _fill(con, "raw_values", list(enumerate(_decoded_records(dump))))
            run_steps(con, [REST_STEPS[4], REST_STEPS[5], "raw/raw_issues", "raw/raw_problems"])
        problem = con.execute("SELECT problem FROM raw_problems LIMIT 1").fetchall()
        if problem:
            rest_names = re.sub(r"field '(\w+)'", lambda m: f"field '{REST_NAMES.get(m[1], m[1])}'", problem[0][0])
            raise UnusableInput(f"{dump.path}: {rest_names}")
    (dropped,) = con.execute(
        "SELECT coalesce(last_value, 0) FROM duckdb_sequences() "
        "WHERE sequence_name = 'pull_requests_dropped' AND schema_name = current_schema()"
    ).fetchall()[0]
    con.execute("ALTER TABLE raw_issues DROP COLUMN problems")
    con.execute("ALTER TABLE raw_issues DROP COLUMN record")
    drop(con, "raw_problems", "raw_fields", "rest_objects", "raw_values")
    con.execute("DROP SEQUENCE pull_requests_dropped")
    return int(dropped)


def _read_rest(con: duckdb.DuckDBPyConnection, paths: list[Path], read_step: str, json_format: str) -> bool:
    """raw_issues and raw_problems through read_step; False when DuckDB refuses the bytes."""
    con.execute("SET VARIABLE input_path = ?", [[str(p) for p in paths]])
    con.execute("SET VARIABLE input_json_format = ?", [json_format])
    try:
        run_steps(con, [read_step, REST_STEPS[5], "raw/raw_issues"])
    except duckdb.Error:
        drop(con, "raw_issues", "raw_fields", "rest_objects")
        return False
    run_steps(con, ["raw/raw_problems"])
    return True


PAGE_BREAK = re.compile(rb"\][ \t\r\n]*\[")


def _page_break_near(f: BinaryIO, position: int, end: int, search: int = SEPARATOR_WINDOW) -> int | None:
    """The offset just past a ']' at or after position (within `search` bytes) that ends
    one page before the next begins: one that starts a line (indented pages: a new line
    is never inside a JSON string, and nested arrays close indented), or else one
    between '}' and '{' (compact pages; a candidate only, as a string may hold it)."""
    f.seek(position)
    window = f.read(min(search, end - position))
    compact = None
    for match in PAGE_BREAK.finditer(window):
        at = match.start()
        if at > 0 and window[at - 1 : at] == b"\n":
            return position + at + 1
        before, after = window[:at].rstrip()[-1:], window[match.end() :].lstrip()[:1]
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
    pos = _skip(text, 0)
    while pos < len(text):
        try:
            _, end = decoder.raw_decode(text, pos)
        except ValueError as exc:
            raise UnusableInput(f"{dump.path}: not JSON: {exc}") from None
        try:  # each value again, as gojson decodes a file: its rules apply to it
            values.append(gojson.loads(text[pos:end].encode()))
        except gojson.JSONInputError as exc:
            raise UnusableInput(f"{dump.path}: {exc}") from None
        pos = _skip(text, end)
    del text
    arrays = [isinstance(v, list) for v in values]
    if any(arrays) and not all(arrays):
        i = arrays.index(not arrays[0])
        raise UnusableInput(f"{dump.path}: value {i} is {gojson.type_name(values[i])} where value 0 is "
                            f"{gojson.type_name(values[0])}: {EXPECTED}")  # fmt: skip
    records = [r for page in values for r in page] if any(arrays) else values
    return [{k: r[k] for k in REST_FIELDS if k in r} if isinstance(r, dict) else r for r in records]
