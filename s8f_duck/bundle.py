"""Answer bundles and submissions (SPEC §6, §7) checked and turned into Arrow tables.

Both documents share one shape: `answers` (a list of per-record answers) and
`aggregates`. Types are checked the way Go's encoding/json would decode them into the
reference's structs: `null` is the zero value (empty list, empty string, 0), a number
where a string belongs (or a fraction where an integer belongs) is unusable input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pyarrow as pa

from .errors import UnusableInput
from .raw import gojson_type, is_int, read_json_file

ANSWERS_SCHEMA = "fak-microcontext-answers/1"
SUBMISSION_SCHEMA = "fak-microcontext-submission/1"

ANSWER_TABLE_SCHEMA = pa.schema(
    [
        ("pos", pa.int64()),
        ("id", pa.string()),
        ("split", pa.string()),
        ("state", pa.string()),
        ("labels", pa.list_(pa.string())),
        ("references", pa.list_(pa.int64())),
        ("duplicate_targets", pa.list_(pa.int64())),
        ("scope_contradictions", pa.list_(pa.string())),
    ]
)


class _Checker:
    """Type checks that name the file and the field of the offending value."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, expected: str, value: Any) -> UnusableInput:
        return UnusableInput(f"{self.path}: {where} must be {expected}, got {gojson_type(value)}")

    def string(self, value: Any, where: str) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(where, "a string", value)
        return value

    def integer(self, value: Any, where: str) -> int:
        if value is None:
            return 0
        if not is_int(value):
            raise self.fail(where, "an integer", value)
        return value

    def list_of(self, value: Any, where: str, item: Callable[[Any, str], Any]) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(where, "an array", value)
        return [item(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, "an object", value)
        return value


def load_document(path: Path, *, expect_schema: str | None) -> tuple[str, dict[str, pa.Table]]:
    """Read an answer bundle or submission; return (corpus_sha256, tables).

    Tables: `answers` (ANSWER_TABLE_SCHEMA, in file order), `state_counts`,
    `label_counts`, `newest_issue_ids`, `most_recently_updated_issue_ids`.
    """
    check = _Checker(path)
    doc = read_json_file(path)
    if not isinstance(doc, dict):
        raise check.fail("the document", "a JSON object", doc)
    schema = check.string(doc.get("schema"), "field 'schema'")
    if expect_schema is not None and schema != expect_schema:
        raise UnusableInput(f"{path}: field 'schema' is {schema!r}, expected {expect_schema!r}")
    corpus = check.string(doc.get("corpus_sha256"), "field 'corpus_sha256'")
    columns: dict[str, list[Any]] = {name: [] for name in ANSWER_TABLE_SCHEMA.names}
    for pos, answer in enumerate(check.list_of(doc.get("answers"), "answers", lambda v, w: v)):
        where = f"answers[{pos}]"
        answer = check.obj(answer, where)
        ident = check.string(answer.get("id"), f"{where}.id")
        if ident:
            where = f"{where} (id {ident!r})"
        row = (
            pos,
            ident,
            check.string(answer.get("split"), f"{where}.split"),
            check.string(answer.get("state"), f"{where}.state"),
            check.list_of(answer.get("labels"), f"{where}.labels", check.string),
            check.list_of(answer.get("references"), f"{where}.references", check.integer),
            check.list_of(answer.get("duplicate_targets"), f"{where}.duplicate_targets", check.integer),
            check.list_of(answer.get("scope_contradictions"), f"{where}.scope_contradictions", check.string),
        )
        for name, value in zip(ANSWER_TABLE_SCHEMA.names, row):
            columns[name].append(value)
    aggregates = check.obj(doc.get("aggregates"), "field 'aggregates'")

    def counts(key: str, column: str) -> pa.Table:
        entries = check.obj(aggregates.get(key), f"aggregates.{key}")
        values = [check.integer(v, f"aggregates.{key}[{k!r}]") for k, v in entries.items()]
        return pa.table({column: pa.array(list(entries), pa.string()), "count": pa.array(values, pa.int64())})

    def ranking(key: str) -> pa.Table:
        ids = check.list_of(aggregates.get(key), f"aggregates.{key}", check.string)
        return pa.table({"rank": pa.array(range(1, len(ids) + 1), pa.int64()), "id": pa.array(ids, pa.string())})

    tables = {
        "answers": pa.Table.from_pydict(columns, schema=ANSWER_TABLE_SCHEMA),
        "state_counts": counts("state_counts", "state"),
        "label_counts": counts("label_counts", "label"),
        "newest_issue_ids": ranking("newest_issue_ids"),
        "most_recently_updated_issue_ids": ranking("most_recently_updated_issue_ids"),
    }
    return corpus, tables
