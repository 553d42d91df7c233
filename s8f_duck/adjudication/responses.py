"""A model endpoint's responses held to bounds (`adjudicate model`): at most
MAX_RESPONSE_BYTES of a body, the whole response within --timeout, no redirect followed,
and the body read here, not trusted: a chat completion whose JSON, nesting, message or
token counts are not what the API says is that record's invalid answer (BadResponse,
with the reason), never the run's end.

BadResponse is an openai.OpenAIError so that the client passes it on as it is, without
the retries it gives a lost connection: asking again for a 1.5 GB body, or for a body
dripped a byte a second, would only cost that again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai

MAX_RESPONSE_BYTES = 1 << 20  # a chat completion of one record's labels is a few KiB
MAX_TOKENS = 10**9  # a count past it is no count a request can have had
MAX_DEPTH = 64  # a chat completion nests five deep; Python's parser gives up near 1,000


class BadResponse(openai.OpenAIError):
    """The endpoint's response to one request cannot be taken: the record is invalid."""


class _BoundedStream(httpx.SyncByteStream):
    """A response body that ends the request past `most` bytes or past its deadline."""

    def __init__(self, inner: httpx.SyncByteStream, deadline: float, timeout: float) -> None:
        self.inner, self.deadline, self.timeout = inner, deadline, timeout

    def __iter__(self) -> Iterator[bytes]:
        got = 0
        for chunk in self.inner:
            got += len(chunk)
            if got > MAX_RESPONSE_BYTES:
                raise BadResponse(f"a response over {MAX_RESPONSE_BYTES:,} bytes")
            if time.monotonic() > self.deadline:
                raise BadResponse(f"no whole response within --timeout {self.timeout:g} s")
            yield chunk

    def close(self) -> None:
        self.inner.close()


class _BoundedTransport(httpx.HTTPTransport):
    """httpx's transport, each response body wrapped in a _BoundedStream: --timeout counts
    from the request's start to its body's last byte (httpx's timeout bounds each read
    only, so a byte a second would never end)."""

    def __init__(self, timeout: float) -> None:
        super().__init__()
        self.timeout = timeout

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = time.monotonic() + self.timeout
        response = super().handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _BoundedStream(response.stream, deadline, self.timeout)
        return response


def bounded_http_client(timeout: float) -> httpx.Client:
    """The HTTP client under the OpenAI client: bounded bodies, no redirect followed (a 3xx
    is the client's status error, which model.py makes the record's invalid answer)."""
    return httpx.Client(transport=_BoundedTransport(timeout), timeout=timeout, follow_redirects=False,
                        trust_env=False)  # fmt: skip


def read_completion(body: bytes) -> tuple[str | None, int | None, int | None]:
    """A chat completion's message content and its usage's prompt and completion tokens
    (None when it gives none); BadResponse saying what is wrong with it."""
    if _depth(body) > MAX_DEPTH:
        raise BadResponse(f"a response nested more than {MAX_DEPTH} deep")
    try:
        completion = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise BadResponse(f"a response that is not JSON ({_short(exc)})") from None
    if not isinstance(completion, dict):
        raise BadResponse("a response that is not a JSON object")
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadResponse("a response without choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if content is not None and not isinstance(content, str):
        raise BadResponse("a response whose message content is not a string")
    usage = completion.get("usage")
    if usage is None:
        return content, None, None
    if not isinstance(usage, dict):
        raise BadResponse("a response whose usage is not an object")
    return content, _tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens")


def _tokens(usage: dict[str, Any], key: str) -> int | None:
    value = usage.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_TOKENS:
        raise BadResponse(f"usage.{key} is {_short(json.dumps(value))}: a token count is an integer "
                          f"from 0 to {MAX_TOKENS:,}")  # fmt: skip
    return value


def _depth(body: bytes) -> int:
    """How deep the brackets of a JSON text nest (those in strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _short(what: object) -> str:
    return " ".join(str(what).split())[:120]
