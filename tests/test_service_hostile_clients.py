"""The grading service against hostile clients (issue 41): submissions that both need the
checked reader sent at once, a poison submission batched beside an ordinary one, one
address holding the connections, a team at its limit sending large bodies. The real
server on the loopback, as its own process."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import needs_s8f
from test_service import Server, baseline, server, start_server, stored, teams  # noqa: F401  (fixtures)

pytestmark = needs_s8f


def checked(submission: dict[str, Any], pad: int = 0) -> bytes:
    """The submission as a file msgspec leaves to the checked reader (an escaped ':' in a
    string), padded with `pad` spaces."""
    body = json.dumps({**submission, "note": "a\\u003ab"}).replace('"a\\\\u003ab"', '"a\\u003ab"')
    return (body + " " * pad).encode()


async def _post_all(url: str, sends: list[tuple[str, bytes]], split: str = "tune") -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:
        return list(await asyncio.gather(*(
            client.post(f"/submissions?split={split}", content=body, headers={"Authorization": f"Bearer {token}"})
            for token, body in sends
        )))  # fmt: skip


@pytest.mark.parametrize("server", [("--daily-limit", "20")], indirect=True)
def test_two_checked_reader_submissions_at_once_are_both_graded(server: Server, baseline: dict[str, Any]) -> None:
    """Three rounds of two submissions that both go to the checked reader, sent at once by
    two teams: every one graded (the checked reader's schema is each batch's own)."""
    body = checked(baseline, pad=2 * 2**20)
    for _ in range(3):
        answers = asyncio.run(_post_all(server.url, [(server.tokens["alpha"], body), (server.tokens["beta"], body)]))
        assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
        assert all(a.json()["grade"]["exact_records"] == 108 for a in answers)
    server.stop()
    assert [r["status"] for r in stored(server.db)] == ["graded"] * 6


@pytest.mark.parametrize("server", [("--daily-limit", "20")], indirect=True)
def test_a_poison_submission_beside_an_ordinary_one_is_refused_alone(server: Server, baseline: dict[str, Any]) -> None:
    """A submission nested 100,000 deep, or broken where only the checked reader looks, sent
    at once with another team's ordinary one and a good one the checked reader reads: 400
    for the poison (stored, counted), 201 for the others, round after round."""
    ordinary, good = json.dumps(baseline).encode(), checked(baseline, pad=2**20)
    poisons = [b'{"answers": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
               checked(baseline)[:-1] + b', "answers": 5}']  # fmt: skip
    for poison in poisons * 2:
        sends = [(server.tokens["alpha"], poison), (server.tokens["beta"], ordinary), (server.tokens["alpha"], good)]
        answers = asyncio.run(_post_all(server.url, sends))
        assert [a.status_code for a in answers] == [400, 201, 201], [a.text[:300] for a in answers]
        assert answers[0].json()["message"].startswith("submission")
    server.stop()
    rows = stored(server.db)
    assert sorted((r["team"], r["status"]) for r in rows) == sorted(
        [("alpha", "unusable")] * 4 + [("alpha", "graded")] * 4 + [("beta", "graded")] * 4
    )


def _hold_heads(host: str, port: int, count: int, stop: threading.Event, opened: list[int]) -> None:
    """`count` unfinished request heads from 127.0.0.2, each reopened when the server drops it."""

    def open_one() -> socket.socket | None:
        try:
            connection = socket.socket()
            connection.bind(("127.0.0.2", 0))
            connection.settimeout(1)
            connection.connect((host, port))
            connection.sendall(b"POST /submissions HTTP/1.1\r\nHost: x\r\nContent-Le")
            connection.setblocking(False)
            opened[0] += 1
            return connection
        except OSError:
            return None

    held = [open_one() for _ in range(count)]
    while not stop.is_set():
        for n, connection in enumerate(held):
            try:
                if connection is not None and connection.recv(1) != b"":
                    continue
            except BlockingIOError:
                continue
            except OSError:
                pass
            if connection is not None:
                connection.close()
            held[n] = open_one()
        stop.wait(0.1)
    for connection in held:
        if connection is not None:
            connection.close()


def test_one_address_holding_unfinished_heads_keeps_no_other_out(server: Server) -> None:  # noqa: F811
    """520 unfinished request heads from 127.0.0.2, reopened as they are dropped (more than
    the service's 512 connections): a request from 127.0.0.1 is answered within 5 s, six
    times over 12 s."""
    host, port = server.url.removeprefix("http://").split(":")
    stop, opened = threading.Event(), [0]
    attacker = threading.Thread(target=_hold_heads, args=(host, int(port), 520, stop, opened), daemon=True)
    attacker.start()
    try:
        deadline = time.monotonic() + 30  # every head open before the first request is timed
        while opened[0] < 520 and time.monotonic() < deadline:
            time.sleep(0.05)
        waits = []
        for _ in range(6):
            started = time.monotonic()
            try:
                status = httpx.get(server.url + "/", timeout=5).status_code
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            waits.append((status, round(time.monotonic() - started, 2)))
            time.sleep(2.0)
    finally:
        stop.set()
        attacker.join(timeout=30)
    assert opened[0] >= 520
    assert all(status == 200 and seconds < 5 for status, seconds in waits), waits


def _memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def _upload(url: str, token: str, size: int, answers: list[str]) -> None:
    """A POST of `size` bytes sent whatever the server says, then its answer's status line."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(f"POST /submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                           f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode())  # fmt: skip
        chunk = b" " * 2**20
        try:
            for _ in range(size // len(chunk)):
                connection.sendall(chunk)
        except OSError:
            pass  # the server closed it: what it answered is read below
        try:
            answers.append(connection.recv(200).split(b"\r\n", 1)[0].decode())
        except OSError as exc:
            answers.append(type(exc).__name__)


@pytest.mark.parametrize("server", [("--daily-limit", "1")], indirect=True)
def test_a_team_at_its_limit_is_refused_before_its_bodies_are_read(server: Server, baseline: dict[str, Any]) -> None:
    """A team at its daily limit sends 20 bodies of 60 MiB at once: each is answered 429
    from its headers (before its body is read) and the server grows by under 300 MiB."""
    assert server.client("alpha").post("/submissions", json=baseline).status_code == 201
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as connection:  # no body sent at all
        connection.sendall(f"POST /submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {server.tokens['alpha']}"
                           f"\r\nContent-Length: {60 * 2**20}\r\n\r\n".encode())  # fmt: skip
        assert connection.recv(200).startswith(b"HTTP/1.1 429 ")
    before = _memory_kib(server.process.pid, "VmRSS")
    answers: list[str] = []
    uploads = [threading.Thread(target=_upload, args=(server.url, server.tokens["alpha"], 60 * 2**20, answers))
               for _ in range(20)]  # fmt: skip
    for upload in uploads:
        upload.start()
    for upload in uploads:
        upload.join(timeout=120)
    grown = (_memory_kib(server.process.pid, "VmHWM") - before) / 1024
    assert answers == ["HTTP/1.1 429 Too Many Requests"] * 20, answers
    print(f"server growth: {grown:.0f} MiB over 20 uploads of 60 MiB")
    assert grown < 300, f"the server grew by {grown:.0f} MiB"
    with server.client("beta") as client:  # and serves as before
        assert client.post("/submissions", json=baseline).status_code == 201


def test_a_dropped_upload_is_one_line_on_stderr_and_not_counted(
    tmp_path: Path, teams: dict[str, str], baseline: dict[str, Any]  # noqa: F811
) -> None:
    """Three uploads dropped halfway: a line each on stderr, no traceback, none counted (the
    team, at a limit of one, still has its one submission)."""
    import subprocess

    from conftest import CLI, S8F_ANSWERS, S8F_PUBLIC

    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        process = subprocess.Popen(
            [str(CLI), "serve", "--answers", str(S8F_ANSWERS), "--public", str(S8F_PUBLIC), "--db",
             str(tmp_path / "service.duckdb"), "--teams", str(tmp_path / "teams.json"), "--port", "0",
             "--daily-limit", "1"], stdout=subprocess.DEVNULL, stderr=err)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while "http://" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        url = log.read_text().split()[2].rstrip("/")
        host, port = url.removeprefix("http://").split(":")
        for n in range(3):
            with socket.create_connection((host, int(port)), timeout=10) as connection:
                connection.sendall(f"POST /submissions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {teams['alpha']}\r\n"
                                   f"Content-Length: {10 * 2**20}\r\n\r\n".encode() + b" " * 2**20)  # fmt: skip
                time.sleep(0.3)
            deadline = time.monotonic() + 30  # each drop said (and its place released) before the next
            while log.read_text().count("was dropped") <= n and time.monotonic() < deadline:
                time.sleep(0.05)
        answer = httpx.post(url + "/submissions", json=baseline, headers={"Authorization": f"Bearer {teams['alpha']}"},
                            timeout=60)  # fmt: skip
        assert answer.status_code == 201, answer.text
    finally:
        process.terminate()
        process.wait(timeout=30)
    said = log.read_text()
    assert "Traceback" not in said, said
    dropped = [line for line in said.splitlines() if "was dropped" in line]
    assert len(dropped) == 3 and all("an upload from 127.0.0.1 was dropped after" in line for line in dropped), said
