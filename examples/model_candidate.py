"""A candidate that asks a model for the rubric's fields, record by record, through an
OpenAI-compatible endpoint, and writes a submission with its answers (the `semantic`
member; no S8f answers). Run it in the sandbox with the endpoint allowed, so that every
request and its tokens are recorded beside the grade:

    s8f-duck run --public public.json --answers answers.json --semantic semantic.json \\
        --runs runs.duckdb --name my-model --candidate-dir examples --ro "$(python3 -c 'import sys; print(sys.base_prefix)')" \\
        --allow-endpoint llm=http://127.0.0.1:8000 --env MODEL_CANDIDATE_MODEL \\
        -- python3 /candidate/model_candidate.py /candidate/rubrics/triage.toml

It reads the public corpus ($S8F_PUBLIC), answers the records of the split graded
($S8F_SPLIT) — or only those of a packet, given with --packet, to spend fewer tokens — and
writes $S8F_OUTPUT. Standard library only: it needs no package inside the sandbox.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
import urllib.error
import urllib.request
from typing import Any

INSTRUCTIONS = (
    "You label one GitHub issue against a rubric. For each field, give the label(s) that fit, "
    "chosen only from the field's allowed values, judged from the issue's title and body alone. "
    "Answer with one JSON object holding, per field, {\"values\": [...], \"evidence\": [...]}, the "
    "evidence quotes copied exactly from the title or body where a field asks for them."
)


def schema(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer's JSON schema: one property per field."""
    properties = {}
    for field in fields:
        values = {"type": "array", "items": {"type": "string", "enum": field["values"]}, "minItems": 1}
        if not field.get("multi"):
            values["maxItems"] = 1
        properties[field["name"]] = {
            "type": "object", "additionalProperties": False, "required": ["values", "evidence"],
            "properties": {"values": values, "evidence": {"type": "array", "items": {"type": "string"}}},
        }
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": properties}


def ask(endpoint: str, model: str, fields: list[dict[str, Any]], record: dict[str, Any]) -> dict[str, Any] | None:
    """The model's answer for one record, or None when it cannot be had or read."""
    rubric = "\n".join(f"- {f['name']}: {f['question']} Allowed: {', '.join(f['values'])}"
                       + (" (one or more)" if f.get("multi") else " (exactly one)") for f in fields)  # fmt: skip
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": INSTRUCTIONS + "\n\nFields:\n" + rubric},
            {"role": "user", "content": f"Record {record['id']}\nTitle: {record['title']}\nBody:\n{record['body'] or ''}"},
        ],
        "response_format": {"type": "json_schema", "json_schema": {"name": "labels", "schema": schema(fields),
                                                                   "strict": True}},
    }  # fmt: skip
    request = urllib.request.Request(endpoint.rstrip("/") + "/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            content = json.load(response)["choices"][0]["message"]["content"]
        return json.loads(content)
    except (urllib.error.URLError, OSError, KeyError, IndexError, TypeError, ValueError) as exc:
        print(f"{record['id']}: no answer: {exc}", file=sys.stderr)
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rubric", help="the rubric (RUBRIC.toml)")
    parser.add_argument("--packet", help="answer only this packet's records (of the split graded)")
    parser.add_argument("--endpoint", default=os.environ.get("S8F_ENDPOINT_LLM", "http://127.0.0.1:8000"))
    parser.add_argument("--model", default=os.environ.get("MODEL_CANDIDATE_MODEL", "model"))
    args = parser.parse_args()
    with open(args.rubric, "rb") as f:
        fields = tomllib.load(f)["field"]
    with open(os.environ.get("S8F_PUBLIC", "/corpus/public.json"), encoding="utf-8") as f:
        corpus = json.load(f)
    split = os.environ.get("S8F_SPLIT", "test")
    records = [r for r in corpus["records"] if r["split"] == split]
    if args.packet:
        with open(args.packet, encoding="utf-8") as f:
            wanted = {r["id"] for r in json.load(f)["records"]}
        records = [r for r in records if r["id"] in wanted]
    names = {f["name"]: f for f in fields}
    semantic = []
    for record in records:
        answer = ask(args.endpoint, args.model, fields, record)
        for name, given in (answer or {}).items():
            if name in names and isinstance(given, dict) and isinstance(given.get("values"), list):
                semantic.append({"id": record["id"], "field": name, "values": given["values"]})
    submission = {"schema": "fak-microcontext-submission/1", "corpus_sha256": os.environ.get("S8F_PUBLIC_SHA256", ""),
                  "answers": [], "semantic": semantic}  # fmt: skip
    with open(os.environ.get("S8F_OUTPUT", "/out/submission.json"), "w", encoding="utf-8") as f:
        json.dump(submission, f)
    print(f"answered {len({e['id'] for e in semantic})} of {len(records)} {split} records", file=sys.stderr)


if __name__ == "__main__":
    main()
