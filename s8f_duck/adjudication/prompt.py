"""What a model adjudicator is asked, and how its answer is checked: the instructions built
from the rubric, one message per record, the JSON schema its answer must follow, and the
answer checked as strictly as a labels file (labels.py) — never guessed, never repaired."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from s8f_duck.adjudication.labels import label_problem
from s8f_duck.adjudication.rubric import Field, Rubric

INSTRUCTIONS = """\
You label one issue of an issue tracker. You are given its title and body; judge it from
that text alone. For each field below, answer the question with the allowed labels only.

{fields}

Answer with a JSON object that has one property per field, each an object with:
- "values": the field's label(s), each exactly as written above;
- "evidence": quotes supporting the label(s). Every quote must be copied verbatim, character
  for character, from the title or the body (a few words are enough; no ellipsis, no
  paraphrase). Give at least one quote where a field says quotes are required; elsewhere
  quotes are optional.
"""

RECORD = "Record {id}\nTitle: {title}\nBody:\n{body}"  # the server and the tests parse this

ASK_AGAIN = "Your answer was refused: {reason}. Answer again, following the instructions and the schema exactly."


@dataclass(frozen=True)
class Prompt:
    system: str  # the instructions, with the rubric's fields
    schema: dict[str, Any]  # the answer's JSON schema
    sha256: str  # of the instructions, the record and ask-again templates and the schema: what a journal binds

    def messages(self, record: dict[str, Any]) -> list[dict[str, str]]:
        user = RECORD.format(id=record["id"], title=record["title"], body=record["body"])
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def response_format(self) -> dict[str, Any]:
        return {"type": "json_schema", "json_schema": {"name": "labels", "schema": self.schema, "strict": True}}


def prompt_for(rubric: Rubric) -> Prompt:
    system = INSTRUCTIONS.format(fields="\n\n".join(_describe(f) for f in rubric.fields))
    schema = answer_schema(rubric)
    hashed = json.dumps({"system": system, "record": RECORD, "ask_again": ASK_AGAIN, "schema": schema},
                        sort_keys=True, ensure_ascii=False)  # fmt: skip
    return Prompt(system, schema, hashlib.sha256(hashed.encode("utf-8")).hexdigest())


def _describe(field: Field) -> str:
    how_many = "one or more of" if field.multi else "exactly one of"
    quotes = "quotes required" if field.evidence else "quotes optional"
    labels = ", ".join(json.dumps(v, ensure_ascii=False) for v in field.values)
    return f'Field "{field.name}": {field.question}\n  Labels ({how_many}): {labels}\n  Evidence: {quotes}.'


def answer_schema(rubric: Rubric) -> dict[str, Any]:
    """One property per field: {"values": [label...], "evidence": [quote...]}; all required."""

    def one(field: Field) -> dict[str, Any]:
        values: dict[str, Any] = {"type": "array", "items": {"type": "string", "enum": list(field.values)},
                                  "minItems": 1}  # fmt: skip
        if not field.multi:
            values["maxItems"] = 1
        evidence = {"type": "array", "items": {"type": "string"}}
        return {"type": "object", "properties": {"values": values, "evidence": evidence},
                "required": ["values", "evidence"], "additionalProperties": False}  # fmt: skip

    return {"type": "object", "properties": {f.name: one(f) for f in rubric.fields},
            "required": [f.name for f in rubric.fields], "additionalProperties": False}  # fmt: skip


class BadAnswer(Exception):
    """An answer that breaks the schema or the rubric: the reason, told to the model when
    it is asked again."""


def check_answer(content: str | None, record: dict[str, Any], rubric: Rubric) -> list[dict[str, Any]]:
    """The labels of one answer ({id, field, values, evidence}, in the rubric's order, each
    field's labels in its order), or BadAnswer."""
    if content is None:
        raise BadAnswer("no answer text")
    try:
        answer = json.loads(content)
    except ValueError:
        raise BadAnswer("not JSON") from None
    except RecursionError:
        raise BadAnswer("nested too deeply to be read") from None
    names = [f.name for f in rubric.fields]
    if not isinstance(answer, dict) or sorted(answer) != sorted(names):
        raise BadAnswer(f"expected an object with exactly the fields {', '.join(names)}")
    return [_checked_field(answer[f.name], f, record) for f in rubric.fields]


def _checked_field(given: Any, field: Field, record: dict[str, Any]) -> dict[str, Any]:
    where = f"field {field.name!r}"
    if not isinstance(given, dict) or sorted(given) != ["evidence", "values"]:
        raise BadAnswer(f"{where}: expected an object with exactly values and evidence")
    values, evidence = given["values"], given["evidence"]
    problem = label_problem(field, record, values, evidence)
    if problem:
        raise BadAnswer(f"{where}: {problem}")
    ordered = [v for v in field.values if v in values]  # the rubric's order: the same labels, the same bytes
    return {"id": record["id"], "field": field.name, "values": ordered, "evidence": evidence}
