"""The runner's side of an allowed endpoint: an HTTP proxy on a Unix socket that forwards
each request to one upstream base URL and records it (time, method, path, status, bytes
each way, latency, and an OpenAI-compatible response's `usage` token counts).

The socket is bound into the sandbox, where relay.py makes it a 127.0.0.1 port; nothing
else outside the sandbox is reachable. A Starlette application served by uvicorn, with
httpx as the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

# Headers that describe one hop, not the message (RFC 9110 §7.6.1), and the ones httpx sets.
HOP_HEADERS = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
}  # fmt: skip
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
REQUEST_COLUMNS = {
    "seq": "BIGINT", "endpoint": "VARCHAR", "requested_at": "TIMESTAMPTZ", "method": "VARCHAR", "path": "VARCHAR",
    "status": "INTEGER", "request_bytes": "BIGINT", "response_bytes": "BIGINT", "latency_ms": "DOUBLE",
    "prompt_tokens": "BIGINT", "completion_tokens": "BIGINT", "total_tokens": "BIGINT",
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


def application(name: str, upstream: str, log: RequestLog) -> Starlette:
    """Forward every request under / to the upstream base URL, recording it."""
    client = httpx.AsyncClient(base_url=upstream.rstrip("/"), timeout=httpx.Timeout(300.0), trust_env=False)

    async def forward(request: Request) -> Response:
        body = await request.body()
        started, at = time.perf_counter(), datetime.now(UTC)
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        try:
            answer = await client.request(request.method, path, content=body, headers=headers)
            status, content = answer.status_code, answer.content
            out_headers = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS | {"content-encoding"}}
            media = answer.headers.get("content-type", "")
        except httpx.HTTPError as exc:
            status, content, out_headers, media = 502, f"s8f-duck proxy: upstream {name}: {exc}".encode(), {}, "text/plain"
        latency = (time.perf_counter() - started) * 1000
        log.add(name, at, request.method, path, status, len(body), len(content), round(latency, 3), *_usage(content, media))
        return Response(content, status_code=status, headers=out_headers)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        await client.aclose()

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)


class EndpointProxy:
    """One proxy server per allowed endpoint, each on its own Unix socket and thread."""

    def __init__(self, endpoints: dict[str, str], socket_dir: Path, log: RequestLog) -> None:
        self.sockets = {name: socket_dir / f"{name}.sock" for name in endpoints}
        self._servers = [
            uvicorn.Server(uvicorn.Config(application(name, url, log), uds=str(self.sockets[name]),
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
