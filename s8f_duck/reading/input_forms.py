"""The forms a raw dump comes in, told apart by its content, and the reading of GitHub's
REST form into the same `raw_issues` as a `gh issue list --json` array.

- the `gh issue list --json ...` array (load.load_raw reads it);
- GitHub's REST issue objects (`GET /repos/OWNER/REPO/issues`) as one JSON array, as
  pages of arrays one after another (`gh api --paginate` without `--slurp`), or as JSON
  Lines; sql/raw/rest/raw_fields.sql maps them to gh's records and drops the pull
  requests, and raw_issues checks and types them as it does gh's;
- any of these gzip-compressed (decompressed into a scratch file first).

The form is told from the first records of the file (SAMPLE_BYTES of it); a dump holds
one form. rest_dumps.py reads the REST form.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.reading.dump import Dump
from s8f_duck.reading.load import load_raw
from s8f_duck.reading.rest_dumps import JSON_SPACE, load_rest, skip_space
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.scratch import scratch_directory

INPUT_FORMATS = ("auto", "gh", "rest")
EXPECTED = (
    "expected a JSON array of `gh issue list --json` records, or GitHub REST issue objects "
    "(GET /repos/OWNER/REPO/issues) as a JSON array, as pages of arrays or as JSON Lines, "
    "any of them possibly gzip-compressed"
)
FORM_NAMES = {"gh": "a `gh issue list --json` record", "rest": "a GitHub REST issue object"}
GH_KEYS = ("createdAt", "updatedAt", "closedAt")
REST_KEYS = ("html_url", "created_at", "updated_at", "closed_at", "pull_request")
SAMPLE_BYTES = 1 << 18  # the head of the file whose records tell the form
PAGE_END_SEARCH = 64 << 20  # how far a first record or page too long for the sample is looked through
COMPACT_PAGE_SEARCH = 16 << 20  # how much of a compact file is parsed to find where its first page ends
GZIP_MAGIC = b"\x1f\x8b"

@contextmanager
def opened(path: Path, input_format: str = "auto") -> Iterator[Dump]:
    """The dump at path, decompressed when it is gzip, with its form; UnusableInput for a
    corrupt gzip file or a form that is none of the expected ones."""
    if input_format not in INPUT_FORMATS:
        raise UnusableInput(f"--input-format must be one of {', '.join(INPUT_FORMATS)}, not {input_format!r}")
    if not path.is_file():  # load_raw names it
        yield Dump(path, path, "gh", "array", False, None)
        return
    try:
        with open(path, "rb") as f:
            compressed = f.read(len(GZIP_MAGIC)) == GZIP_MAGIC
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
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


def _sample(text: str, whole: bool) -> _Sample:
    """The first records of text (the file's head, or all of it when whole)."""
    decoder = json.JSONDecoder()
    records: list[Any] = []
    start = pos = skip_space(text, 0)
    if pos == len(text) or text[pos] not in "[{":
        return _Sample(None, [], 0)
    if text[pos] == "{":  # objects one after another: JSON Lines
        while pos < len(text):
            try:
                value, pos = decoder.raw_decode(text, pos)
            except (ValueError, RecursionError):  # too deep: the strict check names it
                break
            records.append(value)
            pos = skip_space(text, pos)
        return _Sample("lines", records, pos - start)
    pos = skip_space(text, pos + 1)
    while pos < len(text) and text[pos] != "]":
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):  # too deep: the strict check names it
            return _Sample(None, records, pos - start)
        records.append(value)
        pos = skip_space(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = skip_space(text, pos + 1)
        elif pos >= len(text) or text[pos] != "]":
            return _Sample(None, records, pos - start)
    if pos >= len(text):
        return _Sample(None, records, pos - start)
    after = skip_space(text, pos + 1)
    if after < len(text) and text[after] == "[":
        return _Sample("pages", records, pos + 1 - start)
    return _Sample("array" if after == len(text) and whole else None, records, pos + 1 - start)


def _form_of(record: Any) -> str | None:
    """'gh', 'rest' or None (an object with neither's keys, or no object). gh's keys decide:
    a gh record that also carries a key named like a REST field is gh's, whose reader (as
    the original's) ignores keys it does not know; where it lies in the file does not
    matter."""
    if not isinstance(record, dict):
        return None
    return "gh" if any(k in record for k in GH_KEYS) else "rest" if any(k in record for k in REST_KEYS) else None


def _detect(path: Path, plain: Path, input_format: str) -> Dump:
    size = plain.stat().st_size
    if input_format == "gh":
        return Dump(path, plain, "gh", "array", True, size)
    head, sample = _head(plain, size)
    forms = _forms(path, sample.records)
    if input_format == "rest" or forms[:1] == ["rest"]:
        dump = _rest_dump(path, plain, head, sample, size)
        dump.looks_like = "gh" if forms[:1] == ["gh"] else None
        return dump
    first = sample.records[0] if sample.records else None
    if isinstance(first, dict) and forms[0] is None:
        raise UnusableInput(f"{path}: {EXPECTED}; record 0 is an object with neither form's keys "
                            f"({', '.join(GH_KEYS)}; {', '.join(REST_KEYS)})")  # fmt: skip
    if forms[:1] == ["gh"] and sample.container in ("pages", "lines"):
        container = "pages of arrays" if sample.container == "pages" else "JSON Lines"
        raise UnusableInput(f"{path}: `gh issue list --json` records must be one JSON array, "
                            f"not {container} ({EXPECTED})")  # fmt: skip
    return Dump(path, plain, "gh", "array", forms[:1] == ["gh"], size)


def _head(plain: Path, size: int) -> tuple[bytes, _Sample]:
    """The file's first SAMPLE_BYTES and their records (more, up to PAGE_END_SEARCH, when
    the first record is longer)."""
    window = SAMPLE_BYTES
    while True:
        with open(plain, "rb") as f:
            head = f.read(window)
        sample = _sample(head.decode("utf-8", errors="replace"), whole=len(head) == size)
        if sample.records or len(head) == size or window >= PAGE_END_SEARCH:
            return head, sample
        window = min(8 * window, PAGE_END_SEARCH)


def _forms(path: Path, records: list[Any]) -> list[str | None]:
    """Each record's form (_form_of); UnusableInput when they mix forms."""
    forms = [_form_of(r) for r in records]
    for i, form in enumerate(forms):
        if form is not None and forms[0] is not None and form != forms[0]:
            raise UnusableInput(f"{path}: record {i} is {FORM_NAMES[form]} but record 0 is {FORM_NAMES[forms[0]]}: "
                                f"a dump holds one form ({EXPECTED})")  # fmt: skip
    return forms


def _rest_dump(path: Path, plain: Path, head: bytes, sample: _Sample, size: int) -> Dump:
    container = sample.container or ("lines" if head.lstrip(JSON_SPACE.encode())[:1] == b"{" else "array")
    if container == "array" and sample.container is None and len(head) < size:
        container = "pages" if _second_page_follows(plain, indented=b"\n" in head) else "array"
    first = sample.records[0] if sample.records else None
    first_key = None
    if isinstance(first, dict) and first:
        first_key = json.dumps(next(iter(first)), ensure_ascii=False).encode()
    return Dump(path, plain, "rest", container, True, _issue_bytes(sample, size), first_key)


def _second_page_follows(path: Path, *, indented: bool) -> bool:
    """Whether the first array of a file, longer than the sample, is followed by another.
    Indented, a line that starts with ']' then '[' ends a page and begins the next (a new
    line is never inside a JSON string, and nested arrays close indented); compact, the
    first array is parsed, up to COMPACT_PAGE_SEARCH (a longer one is taken for the array)."""
    with open(path, "rb") as f:
        if not indented:
            text = f.read(COMPACT_PAGE_SEARCH).decode("utf-8", errors="replace")
            return _sample(text, whole=False).container == "pages"
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
        return load_rest(con, dump, min_records)
    except UnusableInput as exc:
        message = str(exc).replace(str(dump.plain), str(dump.path))
        if not dump.certain and dump.plain.is_file():
            message += f" ({EXPECTED})"
        if dump.looks_like == "gh":
            message += " (its records look like `gh issue list --json` output: leave out --input-format rest)"
        if message == str(exc):
            raise
        raise UnusableInput(message) from None


