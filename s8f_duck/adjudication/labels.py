"""Labels files: one adjudicator's labels (a person's or a model's) for one packet, as JSON
(`s8f-duck-adjudication-labels/1`) or as CSV (`id,field,value,evidence`, one row per label,
the adjudicator named by the file). Checked against the packet and its rubric when read:
another packet, an unknown record or field, a label outside the rubric, a repeat, a
missing or invented quote are refused with exit 2, naming the file, record and field."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from s8f_duck.adjudication.packet import Packet
from s8f_duck.adjudication.rubric import Field
from s8f_duck.reading.unique_keys import read_json_once
from s8f_duck.safety.errors import UnusableInput

LABELS_SCHEMA = "s8f-duck-adjudication-labels/1"
KINDS = ("person", "model")
CSV_COLUMNS = ["id", "field", "value", "evidence"]


@dataclass(frozen=True)
class Labels:
    path: Path
    adjudicator: str
    kind: str
    labels: dict[tuple[str, str], tuple[str, ...]]  # (record id, field) -> its label(s), sorted
    # a model's second answers (--probe-order) as the file gave them, checked when used; None: none
    probe: list[Any] | None = None


def read_labels(path: Path, packet: Packet) -> Labels:
    """A labels file (JSON, or CSV by its .csv name) checked against the packet."""
    if path.suffix.lower() == ".csv":
        return _checked(path, packet, path.stem, "person", _csv_entries(path))
    document = read_json_once(path)
    if not isinstance(document, dict) or document.get("schema") != LABELS_SCHEMA:
        raise UnusableInput(f"{path}: not a labels file: expected an object with schema {LABELS_SCHEMA!r}")
    if document.get("packet_sha256") not in (packet.sha256, *packet.older_sha256s):  # an older packet's count
        given = document.get("packet_sha256")
        raise UnusableInput(f"{path}: these labels are for another packet than {packet.path} "
                            f"(packet_sha256 {given!r}, the packet's {packet.sha256})")  # fmt: skip
    who = document.get("adjudicator")
    if not (isinstance(who, dict) and isinstance(who.get("name"), str) and who["name"].strip()
            and who.get("kind") in KINDS):  # fmt: skip
        raise UnusableInput(f"{path}: adjudicator must be an object with a name and a kind ({' or '.join(KINDS)})")
    entries = document.get("labels")
    if not isinstance(entries, list):
        raise UnusableInput(f"{path}: labels must be an array")
    probe = document.get("probe")
    second = probe["labels"] if isinstance(probe, dict) and isinstance(probe.get("labels"), list) else None
    return replace(_checked(path, packet, who["name"].strip(), who["kind"], entries), probe=second)


def label_problem(field: Field, record: dict[str, Any], values: Any, evidence: Any) -> str | None:
    """What is wrong with one record's label(s) for a field and their evidence, or None:
    labels outside the rubric, two for a one-label field, repeats, a missing quote where the
    rubric asks for one, a quote that is not verbatim in the record's title or body."""
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        return "values must be a non-empty array of labels"
    outside = [v for v in values if v not in field.values]
    if outside:
        return f"{outside[0]!r} is not one of the rubric's labels ({', '.join(field.values)})"
    if len(set(values)) != len(values) or (not field.multi and len(values) > 1):
        return f"{'one label' if not field.multi else 'each label once'}, not {values}"
    if not isinstance(evidence, list) or not all(isinstance(q, str) and q for q in evidence):
        return "evidence must be an array of non-empty quotes"
    if field.evidence and not evidence:
        return "the rubric asks for evidence: one or more quotes of the title or body"
    for quote in evidence:
        if quote not in record["title"] and quote not in record["body"]:
            return f"the quote {quote[:60]!r} is not in the record's title or body"
    return None


def read_adjudicators(paths: Sequence[Path], packet: Packet) -> list[Labels]:
    """The labels files of two or more adjudicators, each named by one file only."""
    everyone = [read_labels(path, packet) for path in paths]
    names = [labels.adjudicator for labels in everyone]
    if len(everyone) < 2:
        raise UnusableInput("give the labels of at least two adjudicators")
    if len(set(names)) != len(names):
        repeated = next(n for n in names if names.count(n) > 1)
        raise UnusableInput(f"{everyone[names.index(repeated, names.index(repeated) + 1)].path}: the adjudicator "
                            f"{repeated!r} is named by another labels file too")  # fmt: skip
    return everyone


def _csv_entries(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UnusableInput(f"{path}: cannot read as UTF-8 text: {exc}") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if reader.fieldnames is None or [c.strip() for c in reader.fieldnames][:3] != CSV_COLUMNS[:3]:
        raise UnusableInput(f"{path}: the first line must name the columns {','.join(CSV_COLUMNS)}")
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for line, row in enumerate(reader, start=2):
        key = (row.get("id") or "", row.get("field") or "")
        entry = grouped.setdefault(key, {"id": key[0], "field": key[1], "values": [], "evidence": [], "line": line})
        entry["values"].append(row.get("value") or "")
        if (row.get("evidence") or "").strip():
            entry["evidence"].append(row["evidence"])
    return list(grouped.values())


def _checked(path: Path, packet: Packet, name: str, kind: str, entries: list[Any]) -> Labels:
    labels: dict[tuple[str, str], tuple[str, ...]] = {}
    for k, entry in enumerate(entries):
        where = f"{path}: labels[{k}]" if "line" not in entry else f"{path}: line {entry['line']}"
        if not isinstance(entry, dict):
            raise UnusableInput(f"{where}: expected an object with id, field, values and evidence")
        record_id, field_name = entry.get("id"), entry.get("field")
        record = packet.record(record_id) if isinstance(record_id, str) else None
        if record is None:
            raise UnusableInput(f"{where}: record {record_id!r} is not in the packet")
        where = f"{path}: record {record_id}, field {field_name!r}"
        field = packet.rubric.field(field_name) if isinstance(field_name, str) else None
        if field is None:
            raise UnusableInput(f"{where}: the rubric has no such field")
        values, evidence = entry.get("values"), entry.get("evidence", [])
        problem = label_problem(field, record, values, evidence)
        if problem:
            raise UnusableInput(f"{where}: {problem}")
        if (record_id, field_name) in labels:
            raise UnusableInput(f"{where}: labelled twice")
        labels[(record_id, field_name)] = tuple(sorted(values))
    return Labels(path, name, kind, labels)
