"""The grading service holds against what a hostile client sends: a submission that runs
grading out of memory, a large submission beside a normal one, connections that never
finish their headers; and a team added while it serves (the real server, on loopback)."""

from __future__ import annotations

import json
import os
import resource
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import S8F_ANSWERS, needs_s8f, run_cli
from test_service import Server, baseline, server, start_server, stored, teams  # noqa: F401  (fixtures)

pytestmark = needs_s8f


def bloated(submission: dict[str, Any], references: int) -> bytes:
    """The submission with `references` cited numbers in every answer: costly to grade."""
    answers = [{**answer, "references": list(range(1, references))} for answer in submission["answers"]]
    return json.dumps({**submission, "answers": answers}).encode()


@pytest.fixture
def small_memory_server(tmp_path: Path, teams: dict[str, str]) -> Server:  # noqa: F811
    os.environ["S8F_DUCK_MEMORY_LIMIT"] = "100MB"
    try:
        running = start_server(tmp_path, teams, "--daily-limit", "2")
    finally:
        del os.environ["S8F_DUCK_MEMORY_LIMIT"]
    yield running
    running.stop()


def test_a_submission_that_runs_grading_out_of_memory_is_answered_and_counted(
    small_memory_server: Server, baseline: dict[str, Any]  # noqa: F811
) -> None:
    poison = bloated(baseline, 3000)  # about 16 MiB
    with small_memory_server.client("alpha") as client:
        answers = [client.post("/submissions", content=poison) for _ in range(3)]
    assert [a.status_code for a in answers] == [400, 400, 429], [a.text for a in answers]
    assert "more memory than this service gives a submission" in answers[0].json()["message"]
    with small_memory_server.client("beta") as client:  # the grader is whole after it
        assert client.post("/submissions", content=json.dumps(baseline)).status_code == 201
    small_memory_server.stop()
    rows = stored(small_memory_server.db)
    assert [(r["team"], r["status"]) for r in rows] == [("alpha", "unusable")] * 2 + [("beta", "graded")]


def test_a_normal_submission_is_answered_while_a_large_one_is_graded(
    server: Server, baseline: dict[str, Any]  # noqa: F811
) -> None:
    large = bloated(baseline, 9000)
    assert 40 * 2**20 < len(large) < 64 * 2**20
    big: dict[str, Any] = {}

    def send_large() -> None:
        with server.client("alpha") as client:
            started = time.monotonic()
            big["status"] = client.post("/submissions", content=large, timeout=300).status_code
            big["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=send_large)
    thread.start()
    time.sleep(1.0)  # the large one is being read and graded
    with server.client("beta") as client:
        started = time.monotonic()
        normal = client.post("/submissions", content=json.dumps(baseline))
        seconds = time.monotonic() - started
    thread.join()
    assert normal.status_code == 201 and seconds < 10, (normal.status_code, seconds, big)
    assert big["status"] in (201, 400), big


def test_connections_that_never_finish_their_headers_are_let_go(server: Server) -> None:  # noqa: F811
    """2,000 connections that send half a request's headers are closed by the server
    within 30 s; while they are open, a normal request is still answered or refused at
    once (never left hanging), and afterwards the server answers as usual."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2100:
        pytest.skip(f"2,000 connections need more descriptors than this process may have ({hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2100) if hard == resource.RLIM_INFINITY else hard, hard))
    host, port = server.url.removeprefix("http://").split(":")
    held = []
    for _ in range(2000):
        connection = socket.create_connection((host, int(port)), timeout=30)
        connection.sendall(b"POST /submissions HTTP/1.1\r\nHost: x\r\nContent-Le")
        held.append(connection)
    started = time.monotonic()
    deadline = started + 30
    open_ones = list(held)
    while open_ones and time.monotonic() < deadline:
        still = []
        for connection in open_ones:
            connection.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                if connection.recv(1) == b"":
                    connection.close()
                    continue
            except ConnectionResetError:
                connection.close()
                continue
            except TimeoutError:
                pass
            still.append(connection)
        open_ones = still
    assert not open_ones, f"{len(open_ones)} of 2,000 still held after {time.monotonic() - started:.0f} s"
    with server.client() as client:
        assert client.get("/").status_code == 200


def test_a_team_added_while_serving_can_submit(
    server: Server, tmp_path: Path, baseline: dict[str, Any]  # noqa: F811
) -> None:
    made = run_cli("team", "--teams", tmp_path / "teams.json", "gamma")
    assert made.returncode == 0, made.stderr
    server.tokens["gamma"] = made.stdout.strip()
    with server.client("gamma") as client:
        answer = client.post("/submissions", content=json.dumps(baseline))
    assert answer.status_code == 201, answer.text
    assert S8F_ANSWERS.read_bytes()[:4000] not in answer.content
