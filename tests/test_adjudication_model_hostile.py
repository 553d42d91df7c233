"""`adjudicate model` against a hostile endpoint (issue 41): a response of 1.5 GB, one
dripped a byte at a time, one that is not JSON, token counts that are no counts, an answer
nested 100,000 deep, a redirect to another host. Each makes its one record invalid with
its reason; the run finishes, in bounded time and memory (the real command, a real server
on the loopback)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from openai_server import completion, fields_of, keyword, record_of
from test_adjudication_model import CLI, environment, labelling, loaded, packet  # noqa: F401  (fixture)

MEASURED = (  # runs a command, then prints the peak resident set (KiB) of what it waited for
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)
DEEP = 100_000


class Hostile:
    """An OpenAI-compatible endpoint answering each record as HOW says (the others well)."""

    HOW = {"issue-1": "huge", "issue-2": "drip", "issue-3": "not json", "issue-4": "many tokens",
           "issue-5": "negative tokens", "issue-6": "deep body", "issue-7": "deep answer", "issue-8": "redirect"}  # fmt: skip

    def __init__(self) -> None:
        self.sent: dict[str, int] = {}  # bytes of body written per record

        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                record = record_of(body) or {"id": "", "title": "", "body": ""}
                good = completion(body, json.dumps(keyword(record, fields_of(body))), 1)
                how = outer.HOW.get(record["id"], "")
                if how == "huge":
                    return self.stream(record["id"], 1_500_000_000, b"x" * 2**16, 0)
                if how == "drip":
                    return self.stream(record["id"], 1000, b" ", 0.2)
                if how == "redirect":
                    self.send_response(307)
                    self.send_header("Location", "http://127.0.0.2:9/v1/chat/completions")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                if how == "not json":
                    return self.answer(b"hello")
                if how.endswith("tokens"):
                    good["usage"]["prompt_tokens"] = "many" if how == "many tokens" else -5
                if how == "deep answer":
                    good["choices"][0]["message"]["content"] = "[" * DEEP + "]" * DEEP
                data = json.dumps(good).encode()
                if how == "deep body":
                    data = data[:-1] + b', "extra": ' + b"[" * DEEP + b"]" * DEEP + b"}"
                return self.answer(data)

            def answer(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def stream(self, record: str, size: int, piece: bytes, pause: float) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                outer.sent[record] = 0
                try:
                    started = time.monotonic()
                    while outer.sent[record] < size and time.monotonic() - started < 60:
                        self.wfile.write(piece)
                        outer.sent[record] += len(piece)
                        time.sleep(pause)
                except OSError:
                    pass
                self.close_connection = True

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *_: None
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_each_hostile_response_marks_its_record_invalid_and_the_run_finishes(packet: Path, tmp_path: Path) -> None:  # noqa: F811
    hostile = Hostile()
    output = tmp_path / "labels.json"
    try:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", MEASURED, str(CLI), "adjudicate", "model",
             *map(str, labelling(packet, hostile.url, output, "--timeout", "3", "--max-retries", "1"))],
            capture_output=True, text=True, env=environment(), timeout=300,
        )  # fmt: skip
        seconds = time.monotonic() - started
    finally:
        hostile.stop()
    *said, peak = done.stderr.rstrip("\n").split("\n")
    assert done.returncode == 0, said
    peak_mib = int(peak) / 1024
    print(f"adjudicate model against the hostile endpoint: {seconds:.1f} s, peak {peak_mib:.0f} MiB")
    assert peak_mib < 500, peak_mib
    assert seconds < 60, seconds
    invalid = {entry["id"]: entry["reason"] for entry in loaded(output)["invalid"]}
    assert sorted(invalid) == sorted(Hostile.HOW), invalid
    assert f"over {1 << 20:,} bytes" in invalid["issue-1"] and hostile.sent["issue-1"] < 200 * 2**20
    assert "within --timeout 3 s" in invalid["issue-2"] and hostile.sent["issue-2"] < 100
    assert "not JSON" in invalid["issue-3"]
    assert "usage.prompt_tokens is \"many\"" in invalid["issue-4"]
    assert "usage.prompt_tokens is -5" in invalid["issue-5"]
    assert "nested more than" in invalid["issue-6"]
    assert "nested too deeply" in invalid["issue-7"]
    assert "redirected (307) to http://127.0.0.2:9/v1/chat/completions: not followed" in invalid["issue-8"]
    document = loaded(output)
    assert document["totals"]["invalid"] == 8 and document["labels"] == []
    assert all(q["prompt_tokens"] is None or q["prompt_tokens"] >= 0 for q in document["requests"])
