"""A rubric (RUBRIC.toml): the fields adjudicators judge, each with its question and its
closed set of labels. Read with tomllib and checked whole; a bad rubric is exit 2 naming
the field and its line (docs/adjudication.md)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from s8f_duck.safety.errors import UnusableInput

NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
FIELD_KEYS = {"name", "question", "values", "multi", "evidence"}
MAX_VALUES = 64


@dataclass(frozen=True)
class Field:
    name: str
    question: str
    values: tuple[str, ...]
    multi: bool = False  # a set of labels, else exactly one
    evidence: bool = False  # a label needs one or more quotes of the record's title or body


@dataclass(frozen=True)
class Rubric:
    fields: tuple[Field, ...]
    sha256: str  # of the file's bytes: what a packet binds

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def as_json(self) -> list[dict[str, Any]]:
        return [{"name": f.name, "question": f.question, "values": list(f.values), "multi": f.multi,
                 "evidence": f.evidence} for f in self.fields]  # fmt: skip


def read_rubric(path: Path) -> Rubric:
    """The rubric at path, or UnusableInput naming the file, the field and its line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UnusableInput(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise UnusableInput(f"{path}: not TOML: {exc}") from None
    return parse_rubric(document, data, path)


def parse_rubric(document: dict[str, Any], data: bytes, path: Path) -> Rubric:
    unknown = set(document) - {"field"}
    if unknown:
        raise UnusableInput(f"{path}: unknown table or key {sorted(unknown)[0]!r}: a rubric holds [[field]] tables")
    tables = document.get("field")
    if not isinstance(tables, list) or not tables:
        raise UnusableInput(f"{path}: no [[field]] table: a rubric judges at least one field")
    lines = _field_lines(data)
    fields: list[Field] = []
    for k, table in enumerate(tables):
        line = lines[k] if k < len(lines) else "?"
        fields.append(_field(table, path, k + 1, line))
        if [f.name for f in fields].count(fields[-1].name) > 1:
            raise UnusableInput(f"{path}: field {k + 1} {fields[-1].name!r} (line {line}): the name is given to an "
                                "earlier field too")  # fmt: skip
    return Rubric(tuple(fields), hashlib.sha256(data).hexdigest())


def _field(table: dict[str, Any], path: Path, number: int, line: int | str) -> Field:
    where = f"{path}: field {number} (line {line})"
    unknown = set(table) - FIELD_KEYS
    if unknown:
        keys = ", ".join(sorted(FIELD_KEYS))
        raise UnusableInput(f"{where}: unknown key {sorted(unknown)[0]!r} (a field has {keys})")
    name = table.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise UnusableInput(f"{where}: name must be lower-case letters, digits and _, starting with a letter, "
                            f"at most 32: got {name!r}")  # fmt: skip
    where = f"{path}: field {number} {name!r} (line {line})"
    question = table.get("question")
    if not isinstance(question, str) or not question.strip():
        raise UnusableInput(f"{where}: question must be a non-empty string")
    values = table.get("values")
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise UnusableInput(f"{where}: values must be a non-empty list of non-empty strings")
    if len(set(values)) != len(values):
        raise UnusableInput(f"{where}: values repeat {next(v for v in values if values.count(v) > 1)!r}")
    if len(values) > MAX_VALUES:
        raise UnusableInput(f"{where}: more than {MAX_VALUES} values")
    flags = {key: table.get(key, False) for key in ("multi", "evidence")}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise UnusableInput(f"{where}: {key} must be true or false, got {value!r}")
    return Field(name, question.strip(), tuple(values), flags["multi"], flags["evidence"])


def _field_lines(data: bytes) -> list[int]:
    """The line of each [[field]] header, in order (tomllib gives values, not places)."""
    text = data.decode("utf-8")
    return [n for n, line in enumerate(text.splitlines(), start=1) if re.match(r"^\s*\[\[\s*field\s*\]\]", line)]
