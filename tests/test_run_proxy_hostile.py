"""The endpoint proxy (`run --allow-endpoint`) against a hostile candidate (issue 41): a
request it refuses is recorded with its status, one still open when the candidate exits
is recorded as cut and not waited for, a chunked body over the limit is 413, paths some
upstreams read as escapes are refused, and the path recorded is the one sent (real CLI,
real bubblewrap, a real upstream on the loopback)."""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import needs_s8f
from test_run import python_candidate, run_args, runs_rows
from test_run_hostile_output import runner

pytestmark = needs_s8f
if sys.platform != "linux":  # pragma: no cover
    pytest.skip("the sandbox is Linux's", allow_module_level=True)


class Upstream:
    """An HTTP server on the host's loopback noting each request's target as it arrived;
    /v1/slow answers after 60 s."""

    def __init__(self) -> None:
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                seen.append(self.path)
                if self.path.endswith("/slow"):
                    time.sleep(60)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def do_POST(self) -> None:  # noqa: N802
                seen.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *_: None  # (a candidate hanging up is no news here)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# Sends each raw request of argv[1] ('|'-separated; '\\n' for CRLF) on its own connection and
# prints the status line it gets; a request ending in '!' is left open when the candidate exits.
CANDIDATE = r"""
import os, socket, sys
port = int(os.environ["S8F_ENDPOINT_UP"].rsplit(":", 1)[1])
for raw in sys.argv[1].split("|"):
    leave = raw.endswith("!")
    data = raw.rstrip("!").replace("\\n", "\r\n").encode()
    if data.startswith(b"CHUNKED "):  # CHUNKED <bytes> <path>: a chunked POST of that many bytes
        _, size, path = data.split(b" ")
        head = b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        piece = b"%x\r\n%s\r\n" % (2**16, b"x" * 2**16)
        data = head + piece * (int(size) // 2**16) + b"0\r\n\r\n"
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        connection.sendall(data)
    except OSError:
        pass
    if leave:
        print("left open", flush=True)
        continue
    try:
        print(connection.recv(100).split(b"\r\n")[0].decode(), flush=True)
    except OSError as exc:
        print("no answer", type(exc).__name__, flush=True)
    connection.close()
"""

HOSTILE_PATHS = ["/..;/admin", "/%2e%2e;/", "/..%3b/", "/%c0%ae%c0%ae/admin", "/%ef%bc%8e%ef%bc%8e/admin",
                 "/..%00/admin", "/..%09/admin", "/a%01b", "/x;jsessionid=1"]  # fmt: skip


def _get(path: str) -> str:
    return f"GET {path} HTTP/1.1\\nHost: x\\nConnection: close\\n\\n"


def test_each_hostile_request_is_recorded_with_its_status(tmp_path: Path) -> None:
    upstream = Upstream()
    requests = [
        *(_get(path) for path in HOSTILE_PATHS),
        _get("//admin"),  # sent as it is, under the base
        "POST /both HTTP/1.1\\nHost: x\\nContent-Length: 5\\nTransfer-Encoding: chunked\\n\\n5\\nhello\\n0\\n\\n",
        "CHUNKED 3145728 /big",  # 3 MiB chunked, over --request-limit 1MiB
        _get("/ok"),
        _get("/slow") + "!",  # still open when the candidate exits
    ]
    try:
        started = time.monotonic()
        result, seconds, _ = runner(tmp_path, *run_args(
            tmp_path, "proxy", "--request-limit", "1MiB", "--allow-endpoint", f"up=http://127.0.0.1:{upstream.port}/v1",
            *python_candidate(tmp_path, CANDIDATE)), "|".join(requests))  # fmt: skip
        seconds = time.monotonic() - started
    finally:
        upstream.stop()
    (run,) = runs_rows(tmp_path)
    said = Path(run["run_dir"], "stdout.txt").read_text().splitlines()
    assert said[: len(HOSTILE_PATHS)] == ["HTTP/1.1 400 Bad Request"] * len(HOSTILE_PATHS), (said, result.stderr)
    assert said[len(HOSTILE_PATHS):] == ["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request", "HTTP/1.1 413 Request Entity Too Large",
                                         "HTTP/1.1 200 OK", "left open"], said  # fmt: skip
    recorded = [(r["path"], r["status"]) for r in runs_rows(tmp_path, "SELECT * FROM run_requests ORDER BY seq")]
    assert recorded == [*((path, 400) for path in HOSTILE_PATHS), ("//admin", 200), ("/both", 400), ("/big", 413),
                        ("/ok", 200), ("/slow", 499)], recorded  # fmt: skip
    # the refused never reach it (the chunked body over the limit is cut on its way)
    assert upstream.seen == ["/v1//admin", "/v1/big", "/v1/ok", "/v1/slow"], upstream.seen
    assert seconds < 8, f"the runner took {seconds:.0f} s (the open request is not waited for)"
