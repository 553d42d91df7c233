"""An OpenAI-compatible chat completions server on the loopback, for the model adjudicator's
tests (and any other): Starlette on uvicorn in a thread of the test process, answering
POST /v1/chat/completions with a deterministic labeller, and faults on request.

    from openai_server import openai_server

    with openai_server(behaviour="keyword") as server:
        run_cli("adjudicate", "model", packet, "--endpoint", server.url, "--model", "kw", ...)
        server.requests  # every request: its record id, attempt, response_format, headers

Labellers (each reads the rubric from the request's JSON schema and the record from its
user message, so every answer is valid): "keyword" gives each field the first label whose
word (or a synonym) is in the title or body, quoting the word as written there; "first"
gives each field its first label, quoting the title's first word. Faults: `bad_once` /
`bad_always` (record ids answered with `bad`: "json" not JSON, "label" a label outside the
rubric, "quote" a quote not in the text), `status` (request number, from 1 -> 429 with a
50 ms retry-after, or 500, 503...), `hang_after` (after that many answers, hold each new
request `hang_seconds`, then answer 503: to kill a client mid-run; set it to None and the
requests that come next are answered, the ones held stay unanswered), `only_key` (answer
only the requests bearing that API key, holding the others: a killed client's request that
reaches the server late is never answered, whenever it comes). `position_bias`
(record ids): answer every record by the labels alone, whatever its text: those records
with each field's label listed first in the request's schema (so reversing the labels
changes the answer), the others with the label first in alphabetical order (so it does not).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

RECORD = re.compile(r"\ARecord (?P<id>[^\n]*)\nTitle: (?P<title>.*?)\nBody:\n(?P<body>.*)\Z", re.S)
SYNONYMS = {
    "bug": ["bug", "error", "crash", "fail", "broken", "panic", "wrong"],
    "feature": ["feature", "add", "support", "implement", "new"],
    "question": ["question", "how", "why"],
    "documentation": ["documentation", "docs", "readme", "typo"],
    "maintenance": ["maintenance", "refactor", "cleanup", "bump", "ci", "test"],
    "yes": ["should", "steps", "expected"],
    "no": ["maybe", "unclear", "idea"],
}
WORD = re.compile(r"\S+")


def record_of(request: dict[str, Any]) -> dict[str, str] | None:
    """The record (id, title, body) of a request's first user message."""
    user = next((m for m in request.get("messages", []) if m.get("role") == "user"), None)
    match = RECORD.match(user["content"]) if user and isinstance(user.get("content"), str) else None
    return match.groupdict() if match else None


def fields_of(request: dict[str, Any]) -> list[tuple[str, list[str], bool]]:
    """The rubric's fields as the request's schema gives them: name, labels, multi."""
    schema = request["response_format"]["json_schema"]["schema"]
    return [(name, spec["properties"]["values"]["items"]["enum"], spec["properties"]["values"].get("maxItems") != 1)
            for name, spec in schema["properties"].items()]  # fmt: skip


def first_words(record: dict[str, str]) -> str:
    words = WORD.findall(record["title"]) or WORD.findall(record["body"])
    return " ".join(words[:2])


def keyword(record: dict[str, str], fields: list[tuple[str, list[str], bool]]) -> dict[str, Any]:
    text = f"{record['title']}\n{record['body']}"
    answer = {}
    for name, labels, multi in fields:
        found = []
        for label in labels:
            for word in SYNONYMS.get(label, [label]):
                match = re.search(rf"\b{re.escape(word)}\b", text, re.I)
                if match:
                    found.append((label, match.group(0)))
                    break
        if not found:  # no word of any label: one chosen by the title's length, quoting its first words
            found = [(labels[len(record["title"]) % len(labels)], first_words(record))]
        chosen = found if multi else found[:1]
        answer[name] = {"values": [label for label, _ in chosen], "evidence": [q for _, q in chosen if q]}
    return answer


def first(record: dict[str, str], fields: list[tuple[str, list[str], bool]]) -> dict[str, Any]:
    quote = first_words(record)
    return {name: {"values": labels[:1], "evidence": [quote] if quote else []} for name, labels, _ in fields}


LABELLERS = {"keyword": keyword, "first": first}


def bad_answer(kind: str, good: dict[str, Any]) -> str:
    name = next(iter(good))
    if kind == "json":
        return '{"not json'
    if kind == "label":
        return json.dumps({**good, name: {**good[name], "values": ["no such label"]}})
    if kind == "quote":
        return json.dumps({**good, name: {**good[name], "evidence": ["words the record never says"]}})
    raise ValueError(kind)


@dataclass
class OpenAIServer:
    behaviour: str = "keyword"
    bad_once: set[str] = field(default_factory=set)
    bad_always: set[str] = field(default_factory=set)
    bad: str = "json"
    status: dict[int, int] = field(default_factory=dict)
    hang_after: int | None = None
    hang_seconds: float = 60.0
    only_key: str | None = None  # answer only requests bearing this API key; hold the others as hang_after does
    position_bias: set[str] | None = None
    url: str = ""  # the API's base URL, …/v1
    requests: list[dict[str, Any]] = field(default_factory=list)  # every request, in the order they came
    closing: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def answered(self) -> list[dict[str, Any]]:
        """The requests answered with a completion."""
        return [r for r in self.requests if r["answered"]]

    async def complete(self, request: Request) -> JSONResponse:
        body = await request.json()
        record = record_of(body) or {"id": "", "title": "", "body": ""}
        with self._lock:
            number = len(self.requests) + 1
            seen = {"number": number, "id": record["id"], "attempt": sum(m["role"] == "user" for m in body["messages"]),
                    "model": body.get("model"), "response_format": body.get("response_format"),
                    "headers": dict(request.headers), "answered": False}  # fmt: skip
            self.requests.append(seen)
        if number in self.status:
            code = self.status[number]
            headers = {"retry-after-ms": "50", "retry-after": "1"} if code == 429 else {}
            return JSONResponse({"error": {"message": f"status {code} on request {number}"}}, code, headers)
        foreign = self.only_key is not None and seen["headers"].get("authorization") != f"Bearer {self.only_key}"
        if foreign or (self.hang_after is not None and len(self.answered) >= self.hang_after):
            seen["hung"] = True  # never answered: held, then a 503 (at once when the server stops)
            held = 0.0
            while held < self.hang_seconds and not self.closing:
                await asyncio.sleep(0.05)
                held += 0.05
            return JSONResponse({"error": {"message": "held, not answered"}}, 503)
        good = LABELLERS[self.behaviour](record, fields_of(body))
        if self.position_bias is not None:
            quote = first_words(record)
            good = {name: {"values": [labels[0] if record["id"] in self.position_bias else min(labels)],
                           "evidence": [quote] if quote else []} for name, labels, _ in fields_of(body)}  # fmt: skip
        is_bad = record["id"] in self.bad_always or (record["id"] in self.bad_once and seen["attempt"] == 1)
        content = bad_answer(self.bad, good) if is_bad else json.dumps(good)
        seen["answered"] = True
        return JSONResponse(completion(body, content, number))


def completion(body: dict[str, Any], content: str, number: int) -> dict[str, Any]:
    """A chat completion with deterministic usage: a token per four characters."""
    prompt_tokens = sum(len(m.get("content") or "") for m in body["messages"]) // 4
    completion_tokens = len(content) // 4 + 1
    return {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }  # fmt: skip


@contextmanager
def openai_server(behaviour: str = "keyword", **faults: Any) -> Iterator[OpenAIServer]:
    """The server on 127.0.0.1 (a free port) for the with-block; faults as OpenAIServer's fields."""
    if behaviour not in LABELLERS:
        raise ValueError(f"behaviour {behaviour!r}: one of {', '.join(LABELLERS)}")
    state = OpenAIServer(behaviour, **faults)
    app = Starlette(routes=[Route("/v1/chat/completions", state.complete, methods=["POST"])])
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="openai-server", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the test server did not start")
        threading.Event().wait(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    state.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield state
    finally:
        state.closing = True
        server.should_exit = True
        thread.join(timeout=10)
