"""The service's connections, held to time and number: uvicorn's HTTP/1.1 protocol with the
limits it lacks.

uvicorn closes a connection left idle after a response (timeout_keep_alive), but waits
for ever on one that opens and never finishes its request's headers: 20,000 of them took
every descriptor of the server. Here a connection must deliver a request's headers within
HEADER_SECONDS of opening or of its last response, and beyond MAX_CONNECTIONS open at once
a new one is closed at once. One address may hold no more than MAX_PER_ADDRESS of them:
beyond that its new connections are closed at once, so that one client that keeps
reopening unfinished requests cannot keep every other client out (520 of them from one
address did, while the cap was global only). The body is read by the application
(server.py) within BODY_SECONDS.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
BODY_SECONDS = 60.0
MAX_CONNECTIONS = 512
MAX_PER_ADDRESS = 64  # a client behind a proxy shares the proxy's address: raise it there
IDLE_SECONDS = 5  # after a response, until the next request begins (uvicorn's keep-alive timeout)


class BoundedH11Protocol(H11Protocol):
    """H11Protocol with a deadline for each request's headers and a cap on connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS or self._from_same_address() > MAX_PER_ADDRESS:
            transport.abort()  # (connection_lost follows, which forgets it)
            return
        self._expect_headers()

    def _from_same_address(self) -> int:
        """How many of the open connections (this one included) come from this one's address."""
        if not self.client:
            return 0
        host = self.client[0]
        return sum(1 for other in self.connections if getattr(other, "client", None) and other.client[0] == host)

    def data_received(self, data: bytes) -> None:
        if self._headers_due is None and (self.cycle is None or self.cycle.response_complete):
            self._expect_headers()  # a next request on a kept-alive connection: due in time too
        super().data_received(data)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self._headers_due is not None:  # a request's headers are in
            self._headers_due.cancel()
            self._headers_due = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
            self._headers_due = None
        super().connection_lost(exc)

    def _expect_headers(self) -> None:
        self._headers_due = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _too_slow(self) -> None:
        self._headers_due = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(app: Any) -> uvicorn.Config:
    """uvicorn's configuration for the service: the bounded protocol, quiet logs."""
    return uvicorn.Config(
        app, http=BoundedH11Protocol, timeout_keep_alive=IDLE_SECONDS, log_level="warning", access_log=False,
    )  # fmt: skip
