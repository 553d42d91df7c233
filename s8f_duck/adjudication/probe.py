"""`adjudicate model --probe-order`: a position probe. Each record is asked a second time
with every field's labels listed in reversed order (in the instructions and the answer's
schema; the prompt otherwise the same), and the second answer kept beside the labels,
which keep the first. Per field, the share of records whose answer changed
(sql/adjudication/probe_changes.sql) measures how far the order of the options sways the
model (MT-Bench: judges change verdicts when options are reordered)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from s8f_duck.adjudication.prompt import ASK_AGAIN, BadAnswer, Prompt, check_answer, prompt_for
from s8f_duck.adjudication.rubric import Rubric
from s8f_duck.safety.printable import printable
Ask = Callable[[list[dict[str, str]], Prompt], tuple[str | None, dict[str, Any]]]


def reversed_prompt(rubric: Rubric) -> Prompt:
    """The prompt with each field's labels in reversed order."""
    return prompt_for(replace(rubric, fields=tuple(replace(f, values=f.values[::-1]) for f in rubric.fields)))


def probe_record(ask: Ask, prompt: Prompt, record: dict[str, Any], rubric: Rubric,
                 attempts: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:  # fmt: skip
    """The probe's answer ({labels} or {invalid}) and its requests (marked probe), asked
    and asked again as the first answer is."""
    messages = prompt.messages(record)
    requests: list[dict[str, Any]] = []
    for attempt in range(1, attempts + 1):
        content, request = ask(messages, prompt)
        try:
            labels = check_answer(content, record, rubric)
        except BadAnswer as bad:
            requests.append({"id": record["id"], "attempt": attempt, "valid": False, "reason": str(bad), **request,
                             "probe": True})  # fmt: skip
            messages = [*messages, {"role": "assistant", "content": content or ""},
                        {"role": "user", "content": ASK_AGAIN.format(reason=bad)}]  # fmt: skip
            continue
        requests.append({"id": record["id"], "attempt": attempt, "valid": True, "reason": None, **request,
                         "probe": True})  # fmt: skip
        return {"labels": labels}, requests
    return {"invalid": requests[-1]["reason"]}, requests


def probe_document(prompt: Prompt, done: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The labels file's `probe`: the probe prompt's digest, the second answers' labels and
    the records whose second answer was invalid, in the packet's order."""
    probed = [result for result in done if "probe" in result]
    return {
        "prompt_sha256": prompt.sha256,
        "labels": [label for result in probed for label in result["probe"].get("labels", [])],
        "invalid": [{"id": r["id"], "reason": r["probe"]["invalid"]} for r in probed if "invalid" in r["probe"]],
    }


def probe_lines(changes: Sequence[dict[str, Any]]) -> list[str]:
    return [f"position probe {printable(c['adjudicator'])}, {c['field']}: {c['changed']}/{c['records']} answers changed with "
            f"the labels reversed ({c['share']:.3f})" for c in changes]  # fmt: skip
