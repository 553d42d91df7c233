"""`s8f-duck run`: the sandbox hides what it must, the limits hold, endpoints are recorded,
every run is recorded whatever its outcome (real CLI, real bubblewrap, real processes)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import CLI, REPO, S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli

HOSTILE = Path(__file__).parent / "candidates" / "hostile.py"
BASE = Path(sys.base_prefix)
PYTHON = str(BASE / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}")
PYTHON_MOUNT = [] if BASE.is_relative_to("/usr") else ["--ro", str(BASE)]

pytestmark = needs_s8f


def run_args(tmp_path: Path, name: str, *options: str | Path) -> list[str | Path]:
    return [
        "run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", tmp_path / "runs.duckdb",
        "--name", name, *PYTHON_MOUNT, *options,
    ]  # fmt: skip


def runs_rows(tmp_path: Path, query: str = "SELECT * FROM runs ORDER BY started_at") -> list[dict[str, Any]]:
    with duckdb.connect(str(tmp_path / "runs.duckdb"), read_only=True) as con:
        cursor = con.execute(query)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def python_candidate(tmp_path: Path, code: str) -> list[str | Path]:
    """Options and command that run `code` as /candidate/main.py."""
    directory = tmp_path / "candidate"
    directory.mkdir(exist_ok=True)
    (directory / "main.py").write_text(code)
    return ["--candidate-dir", directory, "--", PYTHON, "main.py"]


def test_sql_baseline_through_run_passes_and_records_its_cost(tmp_path: Path) -> None:
    venv = Path(sys.executable).parent.parent
    result = run_cli(
        *run_args(tmp_path, "sql-baseline", "--ro", venv, "--ro", REPO / "s8f_duck", "--ro", REPO / "sql"),
        "--", CLI, "baseline", "--public", "/corpus/public.json", "--output", "/out/submission.json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "PASS: 680/680 test records exact" in result.stdout
    (row,) = runs_rows(tmp_path)
    assert (row["outcome"], row["quality_pass"], row["exact_records"], row["graded_records"]) == ("graded", True, 680, 680)
    assert row["wall_seconds"] > 0 and row["cpu_seconds"] > 0 and row["peak_memory_bytes"] > 10 * 2**20
    assert row["exit_status"] == 0 and row["limit_hit"] is None
    run_dir = Path(row["run_dir"])
    assert (run_dir / "submission.json").is_file() and "wrote 1000 answers" in (run_dir / "stdout.txt").read_text()
    slices = runs_rows(tmp_path, "SELECT slice, true_positives, false_positives, false_negatives FROM run_slices")
    assert {s["slice"]: s["true_positives"] for s in slices}["labels"] == 2053
    assert all(s["false_positives"] == s["false_negatives"] == 0 for s in slices)
    assert runs_rows(tmp_path, "SELECT count(*) AS n FROM run_records")[0]["n"] == 680
    listed = run_cli("runs", "--runs", tmp_path / "runs.duckdb", "--format", "json")
    assert json.loads(listed.stdout)[0]["name"] == "sql-baseline"


@pytest.fixture
def host_listener() -> Iterator[int]:
    """A TCP server on the host's loopback that answers anyone who connects."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"HTTP/1.0 200 OK\r\n\r\nhost secret")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    stop.set()
    thread.join()
    server.close()


def test_hostile_candidate_reaches_nothing_and_is_still_recorded(tmp_path: Path, host_listener: int) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "secret.txt").write_text("home secret")
    marker = f"s8f-duck-test-daemon-{os.getpid()}-{time.monotonic_ns()}"
    (tmp_path / "candidate").mkdir()
    (tmp_path / "candidate" / "hostile.py").write_bytes(HOSTILE.read_bytes())
    env = {**os.environ, "HOME": str(home), "S8F_TEST_SECRET": "runner secret"}
    result = subprocess.run(
        [CLI, *map(str, run_args(tmp_path, "hostile", "--candidate-dir", tmp_path / "candidate")), "--", PYTHON,
         "hostile.py", str(S8F_ANSWERS), str(tmp_path / "runs.duckdb"), str(home / "secret.txt"),
         str(REPO / "README.md"), str(host_listener), marker],
        capture_output=True, text=True, env=env, cwd=REPO, check=False,
    )  # fmt: skip
    (row,) = runs_rows(tmp_path)
    attempts = json.loads(Path(row["run_dir"], "stdout.txt").read_text())
    assert attempts == {name: None for name in attempts}, attempts
    assert len(attempts) == 12
    assert row["outcome"] == "no_submission" and result.returncode == 1
    assert marker not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


@pytest.mark.parametrize(
    ("code", "options", "outcome", "limit"),
    [
        ("import time; time.sleep(60)", ["--time-limit", "2"], "timeout", "wall_time"),
        ("x = bytearray(600 * 2**20)\nprint(len(x))", ["--memory-limit", "200MB"], "out_of_memory", "memory"),
        (
            "import os, time\nfor _ in range(100):\n    if os.fork() == 0:\n        time.sleep(5); os._exit(0)",
            ["--process-limit", "20"], "limit", "processes",
        ),
        ("open('/out/big', 'wb').write(b'x' * 5_000_000)", ["--file-limit", "1MB"], "limit", "file_size"),
        ("import sys\nfor _ in range(100):\n    sys.stdout.write('y' * 2**20)", ["--output-limit", "1MiB"], "limit", "stdout"),
    ],
    ids=["time", "memory", "processes", "file-size", "stdout"],
)  # fmt: skip
def test_a_limit_ends_the_run_and_is_recorded(
    tmp_path: Path, code: str, options: list[str], outcome: str, limit: str
) -> None:
    started = time.monotonic()
    result = run_cli(*run_args(tmp_path, f"limit-{limit}", *options), *python_candidate(tmp_path, code))
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    (row,) = runs_rows(tmp_path)
    assert (row["outcome"], row["limit_hit"]) == (outcome, limit), row
    assert row["graded_records"] is None
    if limit == "wall_time":
        assert row["wall_seconds"] < 2 + 3  # killed within the limit and a few seconds
        assert elapsed < 2 + 30  # and the command did not hang (its start-up is slow on a loaded machine)
    if limit == "stdout":
        assert Path(row["run_dir"], "stdout.txt").stat().st_size == 2**20


@pytest.mark.parametrize(
    ("code", "outcome"),
    [
        ("raise SystemExit(3)", "failed"),
        ("print('nothing written')", "no_submission"),
        ("open('/out/submission.json', 'w').write('{not json')", "unusable_submission"),
    ],
)
def test_a_candidate_that_fails_is_recorded_with_that_outcome(tmp_path: Path, code: str, outcome: str) -> None:
    result = run_cli(*run_args(tmp_path, outcome), *python_candidate(tmp_path, code))
    assert result.returncode == 1
    assert outcome in result.stdout
    (row,) = runs_rows(tmp_path)
    assert row["outcome"] == outcome and row["message"]
    assert runs_rows(tmp_path, "SELECT count(*) AS n FROM run_records")[0]["n"] == 0


def test_tune_split_grades_the_tune_records_without_the_test_answers(tmp_path: Path) -> None:
    submission = tmp_path / "candidate" / "sub.json"
    submission.parent.mkdir()
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", submission).returncode == 0
    result = run_cli(
        *run_args(tmp_path, "tune", "--split", "tune", "--candidate-dir", submission.parent),
        "--", "/bin/cp", "/candidate/sub.json", "/out/submission.json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "108/108 tune records exact" in result.stdout and "graded on test only" in result.stdout
    (row,) = runs_rows(tmp_path)
    assert (row["split"], row["graded_records"], row["aggregates_graded"]) == ("tune", 108, False)
    # The tune grade is the same whatever the bundle says of the test records and aggregates.
    bundle = json.loads(S8F_ANSWERS.read_bytes())
    for entry in bundle["answers"]:
        if entry["split"] == "test":
            entry.update(state="FORGED", labels=["forged"], references=[1], duplicate_targets=[], scope_contradictions=[])
    bundle["aggregates"]["state_counts"] = {"FORGED": 1}
    forged = tmp_path / "forged-answers.json"
    forged.write_text(json.dumps(bundle))
    grades = []
    for answers in (S8F_ANSWERS, forged):
        graded = run_cli("grade", "--answers", answers, "--submission", submission, "--output", tmp_path / "g.json",
                         "--split", "tune", "--format", "json")  # fmt: skip
        assert graded.returncode == 0, graded.stderr
        grades.append(graded.stdout)
    assert grades[0] == grades[1]
    assert "issue-" not in json.dumps(json.loads(grades[0])["breakdown"]["slices"])


class FakeLLM:
    """An OpenAI-compatible chat endpoint on the host's loopback (a real server)."""

    def __init__(self) -> None:
        import uvicorn
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            words = sum(len(m["content"].split()) for m in body["messages"])
            return JSONResponse({
                "id": "chat-1", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "OPEN"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": words, "completion_tokens": 1, "total_tokens": words + 1},
            })  # fmt: skip

        sock = socket.create_server(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="error"))
        self.thread = threading.Thread(target=lambda: self.server.run(sockets=[sock]), daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join()


LLM_CANDIDATE = """
import json, os, socket, sys, urllib.request
base = os.environ["S8F_ENDPOINT_LLM"]
for n in range(3):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "state of issue " + str(n) * (n + 1)}]})
    request = urllib.request.Request(base + "/v1/chat/completions", body.encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.loads(answer.read())["choices"][0]["message"]["content"] == "OPEN"
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
    print("reached the upstream directly")
except OSError:
    print("direct connection refused")
try:
    socket.getaddrinfo("api.openai.com", 443)
    print("resolved a name")
except OSError:
    print("no name resolution")
"""


def test_allowed_endpoint_is_reachable_recorded_and_nothing_else_is(tmp_path: Path) -> None:
    llm = FakeLLM()
    try:
        options = python_candidate(tmp_path, LLM_CANDIDATE)
        result = run_cli(
            *run_args(tmp_path, "llm", "--allow-endpoint", f"llm=http://127.0.0.1:{llm.port}"), *options, str(llm.port)
        )
    finally:
        llm.stop()
    (row,) = runs_rows(tmp_path)
    assert row["outcome"] == "no_submission", (row, result.stderr)
    assert Path(row["run_dir"], "stdout.txt").read_text().split("\n")[:2] == [
        "direct connection refused", "no name resolution"
    ]  # fmt: skip
    requests = runs_rows(tmp_path, "SELECT * FROM run_requests ORDER BY seq")
    assert [(r["endpoint"], r["method"], r["path"], r["status"]) for r in requests] == [
        ("LLM", "POST", "/v1/chat/completions", 200)
    ] * 3  # fmt: skip
    assert [(r["prompt_tokens"], r["completion_tokens"], r["total_tokens"]) for r in requests] == [
        (4, 1, 5), (4, 1, 5), (4, 1, 5)
    ]  # fmt: skip
    assert all(r["request_bytes"] > 0 and r["response_bytes"] > 0 and r["latency_ms"] > 0 for r in requests)


def test_killing_the_runner_keeps_every_earlier_run(tmp_path: Path) -> None:
    for n in range(2):
        assert run_cli(*run_args(tmp_path, f"early-{n}"), *python_candidate(tmp_path, "pass")).returncode == 1
    runner = subprocess.Popen(
        [CLI, *map(str, run_args(tmp_path, "killed")), *map(str, python_candidate(tmp_path, "import time; time.sleep(30)"))],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    left = f"s8f-duck-sandbox-{runner.pid}-"

    def scratch_left() -> bool:  # in $TMPDIR, or in the command's private work directory there
        return any(Path(tempfile.gettempdir()).glob(f"{left}*")) or any(Path(tempfile.gettempdir()).glob(f"*/{left}*"))

    deadline = time.monotonic() + 60
    while not scratch_left():  # the candidate runs
        assert time.monotonic() < deadline and runner.poll() is None
        time.sleep(0.1)
    time.sleep(0.5)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    assert [r["name"] for r in runs_rows(tmp_path)] == ["early-0", "early-1"]
    assert run_cli(*run_args(tmp_path, "after"), *python_candidate(tmp_path, "pass")).returncode == 1
    assert [r["name"] for r in runs_rows(tmp_path)] == ["early-0", "early-1", "after"]
    # The next run removed what the killed one left: its scratch directory and its cgroups.
    assert not scratch_left()
    groups = subprocess.run(["find", "/sys/fs/cgroup", "-maxdepth", "4", "-name", f"s8f-duck-run-{runner.pid}-*"],
                            capture_output=True, text=True).stdout  # fmt: skip
    assert groups == ""


def test_no_sandbox_means_nothing_runs(tmp_path: Path) -> None:
    env = {**os.environ, "S8F_DUCK_BWRAP": "/bin/false"}
    flag = tmp_path / "ran"
    result = subprocess.run(
        [CLI, *map(str, run_args(tmp_path, "nosandbox")), "--", "/bin/touch", str(flag)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "sandbox" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not flag.exists() and not (tmp_path / "runs.duckdb").exists()


@pytest.mark.parametrize("what", ["answers", "runs"])
def test_a_mount_that_would_show_the_answers_or_runs_is_refused(tmp_path: Path, what: str) -> None:
    shown = S8F_ANSWERS.parent if what == "answers" else tmp_path
    result = run_cli(*run_args(tmp_path, "leaky", "--ro", shown), "--", "/bin/true")
    assert result.returncode == 2 and "would show" in result.stderr


def test_the_readme_example_candidate_runs_and_is_graded(tmp_path: Path) -> None:
    result = run_cli(
        *run_args(tmp_path, "minimal", "--candidate-dir", REPO / "examples"), "--", PYTHON, "minimal_candidate.py"
    )
    assert result.returncode == 1, result.stderr  # graded, and short of the quality floor
    (row,) = runs_rows(tmp_path)
    assert (row["outcome"], row["graded_records"]) == ("graded", 680)
    slices = {s["slice"]: s for s in runs_rows(tmp_path, "SELECT * FROM run_slices")}
    assert slices["state"]["precision"] == slices["state"]["recall"] == 1.0
    assert slices["duplicate_targets"]["true_positives"] == 0


def test_a_failed_run_says_why_in_runs_with_its_last_stderr_line(tmp_path: Path) -> None:
    """`runs` fits 100 columns and, under a run that was not graded, says why: the outcome's
    reason and the candidate's last line on stderr, escaped and cut short."""
    code = "import sys\nprint('loading', file=sys.stderr)\nprint('boom: \\x1b[31mno model\\x07' + 'x' * 400, file=sys.stderr)\nraise SystemExit(3)\n"
    assert run_cli(*run_args(tmp_path, "breaks"), *python_candidate(tmp_path, code)).returncode == 1
    (row,) = runs_rows(tmp_path)
    assert row["message"].startswith("the candidate exited with status 3; its last line on stderr: boom: \\x1b[31m")
    assert "\x1b" not in row["message"] and len(row["message"]) < 300
    listed = run_cli("runs", "--runs", tmp_path / "runs.duckdb")
    assert listed.returncode == 0 and max(len(line) for line in listed.stdout.splitlines()) <= 100, listed.stdout
    assert "  why: the candidate exited with status 3; its last line on stderr: boom" in listed.stdout
    full = json.loads(run_cli("runs", "--runs", tmp_path / "runs.duckdb", "--format", "json").stdout)
    assert full[0]["message"] == row["message"]


def test_while_the_first_run_goes_runs_and_leaderboard_say_so(tmp_path: Path) -> None:
    (tmp_path / "runs-runs" / "0123").mkdir(parents=True)  # a run begun, its database not yet written
    for command in ("runs", "leaderboard"):
        done = run_cli(command, "--runs", tmp_path / "runs.duckdb")
        assert done.returncode == 2 and "no run is recorded yet" in done.stderr and "a run has begun" in done.stderr
    (tmp_path / "runs-runs" / "0123").rmdir()
    done = run_cli("runs", "--runs", tmp_path / "runs.duckdb")
    assert "no such runs database (s8f-duck run --runs" in done.stderr
