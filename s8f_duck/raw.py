"""Load and validate a raw `gh issue list --json ...` dump (SPEC §1) into Arrow tables.

Only input checking happens here; every derived fact is computed by the SQL under sql/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from . import gojson, timestamps
from .errors import UnusableInput

RAW_ISSUES_SCHEMA = pa.schema(
    [
        ("number", pa.int64()),
        ("title", pa.string()),
        ("body", pa.string()),
        ("state", pa.string()),
        ("url", pa.string()),
        ("created_at", pa.string()),
        ("created_epoch_s", pa.int64()),
        ("created_nanos", pa.int32()),
        ("updated_at", pa.string()),
        ("updated_epoch_s", pa.int64()),
        ("updated_nanos", pa.int32()),
        ("closed_at", pa.string()),
    ]
)
RAW_LABELS_SCHEMA = pa.schema([("number", pa.int64()), ("position", pa.int32()), ("name", pa.string())])


def read_json_file(path: Path) -> Any:
    """Read a JSON file with Go's decoding rules; UnusableInput names the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return gojson.loads(data)
    except gojson.JSONInputError as exc:
        raise UnusableInput(f"{path}: {exc}") from None


def is_int(value: Any) -> bool:
    """A JSON integer that fits Go's int64 (bool is not one)."""
    return type(value) is int and -(2**63) <= value < 2**63


def _where(path: Path, index: int, record: dict[str, Any]) -> str:
    number = record.get("number")
    return f"{path}: record {index}" + (f" (number {number})" if is_int(number) else "")


def string_field(record: dict[str, Any], key: str, where: str, *, null_ok: bool = False) -> str:
    value = record.get(key)
    if value is None and null_ok:
        return ""
    if not isinstance(value, str):
        raise UnusableInput(f"{where}: field {key!r} must be a string, got {gojson_type(value)}")
    return value


def gojson_type(value: Any) -> str:
    """The JSON type name of a decoded value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def timestamp_field(record: dict[str, Any], key: str, where: str) -> timestamps.Timestamp:
    value = string_field(record, key, where)
    try:
        return timestamps.parse(value)
    except ValueError as exc:
        raise UnusableInput(f"{where}: field {key!r}: {exc}") from None


def load_raw(path: Path, min_records: int = 50) -> tuple[pa.Table, pa.Table]:
    """Validate the dump; return (raw_issues, raw_labels) tables in input order."""
    doc = read_json_file(path)
    if not isinstance(doc, list):
        raise UnusableInput(f"{path}: expected a JSON array of issues, got {gojson_type(doc)}")
    if len(doc) < min_records:
        raise UnusableInput(f"{path}: {len(doc)} records, fewer than the minimum of {min_records}")
    issues: dict[str, list[Any]] = {name: [] for name in RAW_ISSUES_SCHEMA.names}
    labels: dict[str, list[Any]] = {name: [] for name in RAW_LABELS_SCHEMA.names}
    first_seen: dict[int, int] = {}
    for index, record in enumerate(doc):
        if not isinstance(record, dict):
            raise UnusableInput(f"{path}: record {index}: expected an object, got {gojson_type(record)}")
        where = _where(path, index, record)
        number = record.get("number")
        if not is_int(number):
            raise UnusableInput(f"{where}: field 'number' must be an integer, got {gojson_type(number)}")
        if number <= 0:
            raise UnusableInput(f"{where}: field 'number' must be positive")
        if number in first_seen:
            raise UnusableInput(f"{where}: number {number} repeats record {first_seen[number]}")
        first_seen[number] = index
        title, url = string_field(record, "title", where), string_field(record, "url", where)
        if not title:
            raise UnusableInput(f"{where}: field 'title' is empty")
        if not url:
            raise UnusableInput(f"{where}: field 'url' is empty")
        created, updated = timestamp_field(record, "createdAt", where), timestamp_field(record, "updatedAt", where)
        closed = None if record.get("closedAt") is None else timestamp_field(record, "closedAt", where).text
        raw_labels = record.get("labels")
        if raw_labels is None:
            raw_labels = []
        if not isinstance(raw_labels, list):
            raise UnusableInput(f"{where}: field 'labels' must be an array, got {gojson_type(raw_labels)}")
        for position, label in enumerate(raw_labels):
            if not isinstance(label, dict):
                raise UnusableInput(f"{where}: labels[{position}] must be an object, got {gojson_type(label)}")
            labels["number"].append(number)
            labels["position"].append(position)
            labels["name"].append(string_field(label, "name", f"{where}: labels[{position}]", null_ok=True))
        row = (
            number, title, string_field(record, "body", where, null_ok=True), string_field(record, "state", where), url,
            created.text, created.epoch_s, created.nanos, updated.text, updated.epoch_s, updated.nanos, closed,
        )  # fmt: skip
        for name, value in zip(RAW_ISSUES_SCHEMA.names, row):
            issues[name].append(value)
    return (
        pa.Table.from_pydict(issues, schema=RAW_ISSUES_SCHEMA),
        pa.Table.from_pydict(labels, schema=RAW_LABELS_SCHEMA),
    )
