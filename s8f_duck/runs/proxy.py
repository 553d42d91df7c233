"""The runner's side of an allowed endpoint: an HTTP proxy on a Unix socket that forwards
each request to one upstream base URL and records it (time, method, path, status, bytes
each way, latency, an OpenAI-compatible response's `usage` token counts, and the `model`
its request named).

The socket is bound into the sandbox, where relay.py makes it a 127.0.0.1 port; nothing
else outside the sandbox is reachable. A Starlette application served by uvicorn, with
httpx as the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from s8f_duck.runs.limits import Limits

# Headers that describe one hop, not the message (RFC 9110 §7.6.1), and the ones httpx sets.
HOP_HEADERS = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
}  # fmt: skip
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
REQUEST_COLUMNS = {
    "seq": "BIGINT", "endpoint": "VARCHAR", "requested_at": "TIMESTAMPTZ", "method": "VARCHAR", "path": "VARCHAR",
    "status": "INTEGER", "request_bytes": "BIGINT", "response_bytes": "BIGINT", "latency_ms": "DOUBLE",
    "prompt_tokens": "BIGINT", "completion_tokens": "BIGINT", "total_tokens": "BIGINT", "model": "VARCHAR",
}  # fmt: skip


@dataclass
class RequestLog:
    """Every proxied request of a run, in order, from any endpoint's thread."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, *row: Any) -> None:
        with self._lock:
            self.rows.append((len(self.rows) + 1, *row))


def _usage(body: bytes, content_type: str) -> tuple[int | None, int | None, int | None]:
    if "json" not in content_type:
        return None, None, None
    try:
        usage = json.loads(body).get("usage") or {}
    except (ValueError, AttributeError):
        return None, None, None

    def count(key: str) -> int | None:
        value = usage.get(key) if isinstance(usage, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return count("prompt_tokens"), count("completion_tokens"), count("total_tokens")


MODEL_BYTES = 8 * 2**20  # the first bytes of a request body read for the model it names
_MODEL_KEY = re.compile(rb'"model"\s*:\s*"((?:[^"\\]|\\.){1,256})"')


def request_model(body: bytes) -> str | None:
    """The `model` an OpenAI-compatible request body names (the leaderboard's
    self-preference flag): a JSON object's string `model`; of a body cut at MODEL_BYTES,
    the first `"model": "..."` in what was kept; else None."""
    try:
        document = json.loads(body)
    except ValueError:
        found = _MODEL_KEY.search(body)
        if found is None:
            return None
        try:
            document = {"model": json.loads(b'"' + found.group(1) + b'"')}
        except ValueError:
            return None
    model = document.get("model") if isinstance(document, dict) else None
    return model if isinstance(model, str) else None


DEFAULT_REQUEST_BYTES = Limits.request_bytes  # the largest request body forwarded (--request-limit)
USAGE_BYTES = 8 * 2**20  # a JSON response up to this size is read for its token counts as it streams
_ENCODED_SEPARATOR = re.compile(rb"%(2f|5c)", re.IGNORECASE)


class _TooLarge(Exception):
    """The request body went past the proxy's limit while it was being forwarded."""


def within_base(raw_path: bytes) -> bool:
    """Whether a request's path, as the candidate sent it, stays under the endpoint's base
    path: no `.` or `..` segment however it is percent-encoded (`%2e%2e`, `%252e`), no
    encoded slash or backslash, no backslash. Such a path is refused, never normalised:
    the upstream might resolve it above the base (`/v1/../admin` is `/admin`)."""
    if b"\\" in raw_path or _ENCODED_SEPARATOR.search(raw_path):
        return False
    text = raw_path.decode("latin-1")
    for _ in range(3):  # encodings of encodings: %252e is %2e is .
        decoded = unquote(text, encoding="latin-1")
        if decoded == text:
            break
        text = decoded
    else:
        return False
    return "\\" not in text and not any(segment in (".", "..") for segment in text.split("/"))


def application(name: str, upstream: str, log: RequestLog, request_bytes: int = DEFAULT_REQUEST_BYTES) -> Starlette:
    """Forward every request under / to the upstream base URL, recording it. Bodies stream
    both ways (the runner holds at most a chunk of either, and the first USAGE_BYTES of a
    JSON answer for its token counts); a request body past request_bytes, or a path that
    leaves the base path, is refused (413, 400) and recorded with that status."""
    client = httpx.AsyncClient(base_url=upstream.rstrip("/"), timeout=httpx.Timeout(300.0), trust_env=False)

    async def forward(request: Request) -> Response:
        started, at = time.perf_counter(), datetime.now(UTC)
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        query = request.scope.get("query_string", b"")
        path = raw_path.decode("latin-1") + (f"?{query.decode('latin-1')}" if query else "")
        sent, asked = 0, bytearray()  # asked: the body's first MODEL_BYTES, for the model it names

        def refuse(status: int, why: str) -> Response:
            log.add(name, at, request.method, path, status, sent, 0, round((time.perf_counter() - started) * 1000, 3),
                    None, None, None, request_model(bytes(asked)))  # fmt: skip
            return PlainTextResponse(f"s8f-duck proxy: {why}\n", status_code=status)

        if not within_base(raw_path):
            return refuse(400, f"the path {path!r} leaves the base path of endpoint {name}")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > request_bytes:
            return refuse(413, f"a request body of {int(declared):,} bytes is over the limit of {request_bytes:,}")

        async def body() -> AsyncIterator[bytes]:
            nonlocal sent
            async for chunk in request.stream():
                sent += len(chunk)
                if len(asked) < MODEL_BYTES:
                    asked.extend(chunk[: MODEL_BYTES - len(asked)])
                if sent > request_bytes:
                    raise _TooLarge
                yield chunk

        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        if declared.isdigit():  # forwarded with its length (else chunked)
            headers["content-length"] = declared
        too_large = f"the request body went over the limit of {request_bytes:,} bytes"
        try:
            outgoing = client.build_request(request.method, path, content=body(), headers=headers)
            answer = await client.send(outgoing, stream=True)
        except _TooLarge:
            return refuse(413, too_large)
        except httpx.HTTPError as exc:  # (the upstream may have hung up on the cut body first)
            return refuse(413, too_large) if sent > request_bytes else refuse(502, f"upstream {name}: {exc}")
        if sent > request_bytes:  # the upstream answered before the body was cut
            await answer.aclose()
            return refuse(413, too_large)
        media = answer.headers.get("content-type", "")
        out_headers = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS | {"content-encoding"}}

        async def relayed() -> AsyncIterator[bytes]:
            received, kept = 0, bytearray()
            try:
                async for chunk in answer.aiter_raw():
                    received += len(chunk)
                    if "json" in media and len(kept) <= USAGE_BYTES:
                        kept += chunk
                    yield chunk
            finally:
                await answer.aclose()
                usage = _usage(bytes(kept), media) if len(kept) <= USAGE_BYTES else (None, None, None)
                latency = round((time.perf_counter() - started) * 1000, 3)
                log.add(name, at, request.method, path, answer.status_code, sent, received, latency, *usage,
                        request_model(bytes(asked)))  # fmt: skip

        return StreamingResponse(relayed(), status_code=answer.status_code, headers=out_headers)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        await client.aclose()

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)


class EndpointProxy:
    """One proxy server per allowed endpoint, each on its own Unix socket and thread."""

    def __init__(
        self, endpoints: dict[str, str], socket_dir: Path, log: RequestLog, request_bytes: int = DEFAULT_REQUEST_BYTES
    ) -> None:
        self.sockets = {name: socket_dir / f"{name}.sock" for name in endpoints}
        self._servers = [
            uvicorn.Server(uvicorn.Config(application(name, url, log, request_bytes), uds=str(self.sockets[name]),
                                          log_level="error", lifespan="on", access_log=False))
            for name, url in endpoints.items()
        ]  # fmt: skip
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> EndpointProxy:
        for server in self._servers:
            thread = threading.Thread(target=lambda s=server: asyncio.run(s.serve()), daemon=True)
            thread.start()
            self._threads.append(thread)
        deadline = time.monotonic() + 10
        while not all(server.started for server in self._servers):
            if time.monotonic() > deadline:
                raise RuntimeError("the endpoint proxy did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *_: object) -> None:
        for server in self._servers:
            server.should_exit = True
        for thread in self._threads:
            thread.join(timeout=10)
