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
import itertools
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

import anyio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
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
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10**9  # else no count
        return value if ok else None

    return count("prompt_tokens"), count("completion_tokens"), count("total_tokens")


DEFAULT_REQUEST_BYTES = Limits.request_bytes  # the largest request body forwarded (--request-limit)
USAGE_BYTES = 8 * 2**20  # a JSON response up to this size is read for its token counts as it streams
_ENCODED_SEPARATOR = re.compile(rb"%(2f|5c)", re.IGNORECASE)


class _TooLarge(Exception):
    """The request body went past the proxy's limit while it was being forwarded."""


def path_refused(raw_path: bytes) -> str | None:
    """Why a request's path (as the candidate sent it) is refused, or None: what the upstream
    might resolve above the endpoint's base path (`/v1/../admin` is `/admin`), refused and
    never normalised. A `.` or `..` segment however percent-encoded (`%2e%2e`, `%252e`), an
    encoded slash or any backslash; a `;`
    (path parameters, which some servers read as `..;` = `..`), anything but printable
    ASCII once decoded (NUL, tab and other control bytes; overlong UTF-8 such as
    `%c0%ae`; fullwidth dots `%ef%bc%8e`, which some upstreams fold to `.`)."""
    if b"\\" in raw_path or _ENCODED_SEPARATOR.search(raw_path):
        return "an encoded slash or a backslash"
    text = raw_path.decode("latin-1")
    for _ in range(3):  # encodings of encodings: %252e is %2e is .
        decoded = unquote(text, encoding="latin-1")
        if decoded == text:
            break
        text = decoded
    else:
        return "percent-encoding nested more than three deep"
    if "\\" in text:
        return "an encoded backslash"
    if ";" in text:
        return "a ';' (path parameters)"
    if not all(" " <= c < "\x7f" for c in text):
        return "a byte that is not printable ASCII (a control byte, NUL or non-ASCII UTF-8)"
    if any(segment in (".", "..") for segment in text.split("/")):
        return "a '.' or '..' segment"
    return None


DRAIN_SECONDS = 5.0
CUT_STATUS = 499  # recorded for a request still open when the candidate's run ended


def application(name: str, upstream: str, log: RequestLog, request_bytes: int = DEFAULT_REQUEST_BYTES) -> Starlette:
    """Forward every request under / to the upstream base URL, recording it. Bodies stream
    both ways (the runner holds at most a chunk of either, and the first USAGE_BYTES of a
    JSON answer for its token counts); a request body past request_bytes, or a path that
    leaves the base path, is refused (413, 400) and recorded with that status. Every
    request is recorded once, whatever it ends in: refused, failed upstream (502), or still
    open when the run ends (`app.state.cut_open()`: CUT_STATUS)."""
    client = httpx.AsyncClient(timeout=httpx.Timeout(300.0), trust_env=False)
    base = httpx.URL(upstream.rstrip("/"))
    open_requests: dict[int, Any] = {}  # each request not yet recorded: how to record it as cut
    numbers = itertools.count()

    async def forward(request: Request) -> Response:
        started, at = time.perf_counter(), datetime.now(UTC)
        raw_path = request.scope.get("raw_path") or request.url.path.encode()
        query = request.scope.get("query_string", b"")
        path = raw_path.decode("latin-1") + (f"?{query.decode('latin-1')}" if query else "")
        sent = received = 0
        key = next(numbers)

        def record(status: int, usage: tuple[int | None, ...] = (None, None, None)) -> None:
            if open_requests.pop(key, None) is None:  # recorded already
                return
            latency = round((time.perf_counter() - started) * 1000, 3)
            log.add(name, at, request.method, path, status, sent, received, latency, *usage)

        open_requests[key] = lambda: record(CUT_STATUS)

        def refuse(status: int, why: str) -> Response:
            record(status)
            return PlainTextResponse(f"s8f-duck proxy: {why}\n", status_code=status)

        why = path_refused(raw_path)
        if why is not None:
            return refuse(400, f"the path {path!r} is refused ({why}): it could leave the base path of endpoint {name}")
        declared = request.headers.get("content-length", "")
        if declared and "transfer-encoding" in request.headers:  # (which one frames the body is for each hop to guess)
            return refuse(400, "a request with both Content-Length and Transfer-Encoding")
        if declared.isdigit() and int(declared) > request_bytes:
            return refuse(413, f"a request body of {int(declared):,} bytes is over the limit of {request_bytes:,}")

        body_ended = False

        async def body() -> AsyncIterator[bytes]:
            nonlocal sent, body_ended
            async for chunk in request.stream():
                sent += len(chunk)
                if sent > request_bytes:
                    raise _TooLarge
                yield chunk
            body_ended = True

        async def over_limit() -> bool:
            """Whether the body goes over the limit: read on (and dropped) where the upstream
            stopped reading it, for at most DRAIN_SECONDS (a body cut by an upstream that
            answered early is still 413 when it is too large, not the upstream's failure)."""
            nonlocal sent
            more = not body_ended
            with anyio.move_on_after(DRAIN_SECONDS):
                while more and sent <= request_bytes:
                    message = await request.receive()
                    sent += len(message.get("body", b""))
                    more = message["type"] == "http.request" and message.get("more_body", False)
            return sent > request_bytes

        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        if declared.isdigit():  # forwarded with its length (else chunked)
            headers["content-length"] = declared
        too_large = f"the request body went over the limit of {request_bytes:,} bytes"
        # the base's path and the candidate's, joined as they are: what is recorded is what is sent
        target = base.copy_with(raw_path=base.raw_path.rstrip(b"/") + raw_path + (b"?" + query if query else b""))
        try:
            outgoing = client.build_request(request.method, target, content=body(), headers=headers)
            answer = await client.send(outgoing, stream=True)
        except _TooLarge:
            return refuse(413, too_large)
        except ClientDisconnect:  # the candidate hung up (or ended) before the answer came
            return refuse(CUT_STATUS, "cut")
        except Exception as exc:  # noqa: BLE001  (the upstream may have hung up on the cut body first)
            if await over_limit():
                return refuse(413, too_large)
            return refuse(502, f"upstream {name}: {type(exc).__name__}: {exc}".splitlines()[0])
        if sent > request_bytes:  # the upstream answered before the body was cut
            await answer.aclose()
            return refuse(413, too_large)
        media = answer.headers.get("content-type", "")
        out_headers = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_HEADERS | {"content-encoding"}}

        async def relayed() -> AsyncIterator[bytes]:
            nonlocal received
            kept = bytearray()
            try:
                async for chunk in answer.aiter_raw():
                    received += len(chunk)
                    if "json" in media and len(kept) <= USAGE_BYTES:
                        kept += chunk
                    yield chunk
            finally:
                await answer.aclose()
                record(answer.status_code, _usage(bytes(kept), media) if len(kept) <= USAGE_BYTES else (None, None, None))

        return StreamingResponse(relayed(), status_code=answer.status_code, headers=out_headers)

    def cut_open() -> None:
        for cut in list(open_requests.values()):
            cut()

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        await client.aclose()

    app = Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)
    app.state.cut_open = cut_open
    return app


class EndpointProxy:
    """One proxy server per allowed endpoint, each on its own Unix socket and thread."""

    def __init__(
        self, endpoints: dict[str, str], socket_dir: Path, log: RequestLog, request_bytes: int = DEFAULT_REQUEST_BYTES
    ) -> None:
        self.sockets = {name: socket_dir / f"{name}.sock" for name in endpoints}
        self._apps = [application(name, url, log, request_bytes) for name, url in endpoints.items()]
        self._servers = [
            uvicorn.Server(uvicorn.Config(app, uds=str(self.sockets[name]), log_level="error", lifespan="on",
                                          access_log=False))
            for app, name in zip(self._apps, endpoints)
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
        # The candidate has ended: what it left open is recorded as cut, and not waited for.
        # (a request is recorded once: whichever of its thread and this one comes first)
        for app, server in zip(self._apps, self._servers):
            app.state.cut_open()
            server.force_exit = server.should_exit = True
        for thread in self._threads:
            thread.join(timeout=10)
