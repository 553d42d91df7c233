"""Load a public corpus (SPEC §6) back into the freeze pipeline's input tables.

verify, baseline and explore all start here: the public records become `raw_issues` and
`raw_labels` (their text is already scrubbed, so they run with an empty redaction map),
and then the very same SQL as freeze derives every table from them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from . import gojson
from .artifacts import CORPUS_SCHEMA
from .errors import UnusableInput
from .raw import RAW_ISSUES_SCHEMA, RAW_LABELS_SCHEMA, gojson_type, is_int, string_field, timestamp_field

NO_REDACTIONS = pa.table({"rule": pa.array([], pa.int64()), "pattern": pa.array([], pa.string())})


@dataclass
class PublicCorpus:
    path: Path
    sha256: str
    document: dict[str, Any]
    tables: dict[str, pa.Table]  # raw_issues, raw_labels, redactions (empty)


def load_public(path: Path) -> PublicCorpus:
    """Read and type-check a public corpus; UnusableInput names the record and field."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        doc = gojson.loads(data)
    except gojson.JSONInputError as exc:
        raise UnusableInput(f"{path}: {exc}") from None
    if not isinstance(doc, dict):
        raise UnusableInput(f"{path}: expected a JSON object, got {gojson_type(doc)}")
    if doc.get("schema") != CORPUS_SCHEMA:
        raise UnusableInput(f"{path}: field 'schema' is {doc.get('schema')!r}, expected {CORPUS_SCHEMA!r}")
    for key in ("source", "frozen_at"):
        string_field(doc, key, str(path))
    records = doc.get("records")
    if not isinstance(records, list):
        raise UnusableInput(f"{path}: field 'records' must be an array, got {gojson_type(records)}")
    issues: dict[str, list[Any]] = {name: [] for name in RAW_ISSUES_SCHEMA.names}
    labels: dict[str, list[Any]] = {name: [] for name in RAW_LABELS_SCHEMA.names}
    seen: set[int] = set()
    for index, rec in enumerate(records):
        where = f"{path}: records[{index}]"
        if not isinstance(rec, dict):
            raise UnusableInput(f"{where}: expected an object, got {gojson_type(rec)}")
        number = rec.get("number")
        if not is_int(number) or number <= 0:
            raise UnusableInput(f"{where}: field 'number' must be a positive integer")
        where = f"{where} (number {number})"
        if number in seen:
            raise UnusableInput(f"{where}: number {number} appears twice")
        seen.add(number)
        for key in ("id", "split", "title", "body", "url", "state", "title_sha256", "body_sha256"):
            string_field(rec, key, where)
        created, updated = timestamp_field(rec, "created_at", where), timestamp_field(rec, "updated_at", where)
        closed = None if rec.get("closed_at") is None else timestamp_field(rec, "closed_at", where).text
        names = rec.get("labels")
        if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise UnusableInput(f"{where}: field 'labels' must be null or an array of strings")
        for position, name in enumerate(names or []):
            labels["number"].append(number)
            labels["position"].append(position)
            labels["name"].append(name)
        row = (
            number, rec["title"], rec["body"], rec["state"], rec["url"], created.text, created.epoch_s,
            created.nanos, updated.text, updated.epoch_s, updated.nanos, closed,
        )  # fmt: skip
        for name, value in zip(RAW_ISSUES_SCHEMA.names, row):
            issues[name].append(value)
    tables = {
        "raw_issues": pa.Table.from_pydict(issues, schema=RAW_ISSUES_SCHEMA),
        "raw_labels": pa.Table.from_pydict(labels, schema=RAW_LABELS_SCHEMA),
        "redactions": NO_REDACTIONS,
    }
    return PublicCorpus(path, hashlib.sha256(data).hexdigest(), doc, tables)
