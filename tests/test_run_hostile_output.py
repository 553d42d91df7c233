"""What a candidate sends back is contained: an empty or huge submission, a tree deeper than
Python's recursion, swapped or broken inputs (real CLI, real bubblewrap, real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, REPO, S8F_ANSWERS, S8F_PUBLIC, needs_s8f
from test_run import PYTHON, python_candidate, run_args, runs_rows

from s8f_duck.safety import scratch

pytestmark = needs_s8f


# Runs a command and then prints, as its last line on stderr, the largest resident set (KiB)
# of what it waited for: the runner's own peak (the candidate's processes are reaped inside
# the sandbox and are not counted in it).
MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def runner(tmp_path: Path, *args: str | Path) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """The real `s8f-duck` with its own $TMPDIR (tmp_path/tmp): its result, its wall
    seconds and its peak memory (bytes)."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "NO_COLOR": "1"}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", MEASURED, str(CLI), *map(str, args)], capture_output=True,
                            text=True, env=env, timeout=600)  # fmt: skip
    seconds = time.monotonic() - started
    *lines, peak = result.stderr.rstrip("\n").split("\n")
    result.stderr = "".join(line + "\n" for line in lines)
    return result, seconds, int(peak) * 1024


def run_candidate(
    tmp_path: Path, name: str, code: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], float, int, dict[str, Any]]:
    """`code` run as a candidate named `name` with the options: the runner's result, wall
    seconds and peak memory, and the run's one row."""
    result, seconds, peak = runner(tmp_path, *run_args(tmp_path, name, *options, *python_candidate(tmp_path, code)))
    (row,) = runs_rows(tmp_path)
    return result, seconds, peak, row


def test_an_empty_object_as_submission_is_recorded(tmp_path: Path) -> None:
    candidate = python_candidate(tmp_path, 'open("/out/submission.json", "w").write("{}")\n')
    result, _, _ = runner(tmp_path, *run_args(tmp_path, "empty", *candidate))
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr
    (row,) = runs_rows(tmp_path)
    assert (row["outcome"], row["message"]) == ("unusable_submission", "the submission is bound to another corpus")


def test_a_tree_deeper_than_recursion_is_removed_and_the_next_commands_work(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "os.chdir('/out')\n"
        "for _ in range(3000):\n"
        "    os.mkdir('d'); os.chdir('d')\n"
        "    os.symlink('/corpus/public.json', 'link')\n"
        "open('/out/submission.json', 'w').write('{}')\n"
    )
    result, _, _ = runner(tmp_path, *run_args(tmp_path, "deep", *python_candidate(tmp_path, code)))
    assert result.returncode == 1 and "nested too deeply" not in result.stderr, result.stderr
    assert [row["outcome"] for row in runs_rows(tmp_path)] == ["unusable_submission"]
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing left behind in $TMPDIR
    listed, _, _ = runner(tmp_path, "runs", "--runs", tmp_path / "runs.duckdb")
    assert listed.returncode == 0 and "deep" in listed.stdout, listed.stderr
    again, _, _ = runner(tmp_path, *run_args(tmp_path, "deep again", *python_candidate(tmp_path, code)))
    assert again.returncode == 1, again.stderr
    assert len(runs_rows(tmp_path)) == 2


@pytest.mark.parametrize(("what", "write"), [
    ("150 MB of one member", "f.write('{\"x\": [' + '{},' * 50_000_000 + '{}]}')"),
    ("1 GiB, sparse", "f.truncate(2**30)"),
])  # fmt: skip
def test_a_submission_over_the_limit_is_recorded_unread(tmp_path: Path, what: str, write: str) -> None:
    code = f"with open('/out/submission.json', 'w') as f:\n    {write}\n"
    result, seconds, peak = runner(tmp_path, *run_args(tmp_path, "big", "--file-limit", "2GiB",
                                                       *python_candidate(tmp_path, code)))  # fmt: skip
    assert result.returncode == 1, result.stderr
    (row,) = runs_rows(tmp_path)
    assert row["outcome"] == "unusable_submission"
    assert "over the submission limit of 16,777,216 (--submission-limit); it was not read" in row["message"]
    assert not (Path(row["run_dir"]) / "submission.json").exists()  # no copy of it kept
    assert seconds < 60 and peak < 2 * 2**30, (seconds, peak)


def test_the_submission_limit_can_be_set(tmp_path: Path) -> None:
    code = "import shutil\nshutil.copyfile('/corpus/public.json', '/out/submission.json')\n"
    result, _, _ = runner(tmp_path, *run_args(tmp_path, "limited", "--submission-limit", "1KiB",
                                              *python_candidate(tmp_path, code)))  # fmt: skip
    assert result.returncode == 1
    assert "over the submission limit of 1,024" in runs_rows(tmp_path)[0]["message"]


@pytest.mark.parametrize(("option", "fault", "message"), [
    ("swapped", None, "--public {answers} is an answer bundle, not a public corpus: did you swap --public and --answers?"),
    ("truncated", b"", "--answers {answers_given}: answers["),
    ("empty object", b"{}", "--answers {answers_given}: field 'schema' is '', expected 'fak-microcontext-answers/1'"),
])  # fmt: skip
def test_inputs_are_refused_before_the_candidate_starts(
    tmp_path: Path, option: str, fault: bytes | None, message: str
) -> None:
    """Each is exit 2, at once: the candidate (which would take a minute) never starts and
    nothing is recorded."""
    public, answers = S8F_PUBLIC, S8F_ANSWERS
    if option == "swapped":
        public, answers = S8F_ANSWERS, S8F_PUBLIC
    elif fault is not None:
        answers = tmp_path / "answers.json"
        answers.write_bytes(fault or S8F_ANSWERS.read_bytes()[:100_000])
    args = ["run", "--public", public, "--answers", answers, "--runs", tmp_path / "runs.duckdb", "--name", option,
            "--", PYTHON, "-c", "import time; time.sleep(60)"]  # fmt: skip
    result, seconds, _ = runner(tmp_path, *args)
    assert result.returncode == 2 and seconds < 30, (result.stderr, seconds)
    assert message.format(answers=S8F_ANSWERS, answers_given=answers) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs.duckdb").exists() and not (tmp_path / "runs-runs").exists()


def test_a_dead_runs_leftover_that_cannot_be_removed_is_reported_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dead run's directory whose removal fails is set aside under another name and named
    once on stderr; later commands neither fail on it nor report it again."""
    dead = tmp_path / f"{scratch.WORK_PREFIX}999999999-abc"
    (dead / "deep").mkdir(parents=True)
    monkeypatch.setattr(scratch, "remove_tree", lambda path: False)
    scratch.clean_stale(tmp_path)
    scratch.clean_stale(tmp_path)
    warned = capsys.readouterr().err.strip().splitlines()
    assert len(warned) == 1 and "set aside" in warned[0], warned
    assert [p.name for p in tmp_path.iterdir()] == [f"{scratch.LEFTOVER_PREFIX}999999999-abc"]


if sys.platform != "linux":  # pragma: no cover
    pytest.skip("the sandbox is Linux's", allow_module_level=True)


class Upstream:
    """A plain HTTP server on the host's loopback that reads request bodies in pieces and
    notes each request's path and how many body bytes reached it."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                if self.headers.get("Transfer-Encoding") == "chunked":
                    got = 0
                    while size := int(self.rfile.readline().split(b";")[0] or b"0", 16):
                        while size and (chunk := self.rfile.read(min(2**20, size))):
                            got, size = got + len(chunk), size - len(chunk)
                        self.rfile.readline()
                    return self.answer(got)
                size, got = int(self.headers.get("Content-Length") or 0), 0
                while got < size and (chunk := self.rfile.read(min(2**20, size - got))):
                    got += len(chunk)
                self.answer(got)

            def do_GET(self) -> None:  # noqa: N802
                self.answer(0)

            def answer(self, got: int) -> None:
                seen.append((self.path, got))
                body = json.dumps({"received": got}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


SENDER = """
import http.client, os, sys
port = int(os.environ["S8F_ENDPOINT_UP"].rsplit(":", 1)[1])

def request(method, path, size=None, chunked=False):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        if size is not None:
            connection.putheader("Transfer-Encoding" if chunked else "Content-Length", "chunked" if chunked else str(size))
        connection.endheaders()
        piece, sent = b"x" * 2**20, 0
        while size is not None and sent < size:
            part = piece[: min(len(piece), size - sent)]
            connection.send(b"%x\\r\\n%s\\r\\n" % (len(part), part) if chunked else part)
            sent += len(part)
        if chunked:
            connection.send(b"0\\r\\n\\r\\n")
    except OSError:
        pass
    try:
        answer = connection.getresponse()
        print(method, path, answer.status, answer.read()[:60])
    except OSError as exc:
        print(method, path, "no answer", type(exc).__name__)

for path in filter(None, sys.argv[1].split(",")):
    request("GET", path)
for size, chunked in [(int(n), c == "chunked") for n, c in (s.split(":") for s in sys.argv[2].split(",") if s)]:
    request("POST", "/upload", size, chunked)
"""


def test_the_proxy_keeps_to_the_base_path(tmp_path: Path) -> None:
    upstream = Upstream()
    try:
        paths = "/../admin,/%2e%2e/admin,/%252e%252e/admin,/a/..%2fadmin,/ok"
        result, _, _ = runner(tmp_path, *run_args(tmp_path, "paths", "--allow-endpoint",
                                                  f"up=http://127.0.0.1:{upstream.port}/v1",
                                                  *python_candidate(tmp_path, SENDER)), paths, "")  # fmt: skip
    finally:
        upstream.stop()
    assert upstream.seen == [("/v1/ok", 0)], (upstream.seen, result.stderr)
    requests = runs_rows(tmp_path, "SELECT path, status FROM run_requests ORDER BY seq")
    assert [(r["path"], r["status"]) for r in requests] == [(p, 400) for p in paths.split(",")[:-1]] + [("/ok", 200)]


def test_the_proxy_streams_bodies_and_refuses_one_over_its_limit(tmp_path: Path) -> None:
    """A 1 GiB body reaches the upstream while the runner holds a few MiB of it; under the
    default limit (64 MiB) a larger body, declared or chunked, is refused and recorded."""
    upstream = Upstream()
    try:
        streamed, seconds, peak = runner(tmp_path, *run_args(
            tmp_path, "large", "--request-limit", "2GiB", "--time-limit", "300",
            "--allow-endpoint", f"up=http://127.0.0.1:{upstream.port}/v1", *python_candidate(tmp_path, SENDER),
        ), "", f"{2**30}:length")  # fmt: skip
        refused, _, _ = runner(tmp_path, *run_args(
            tmp_path, "over", "--allow-endpoint", f"up=http://127.0.0.1:{upstream.port}/v1",
            *python_candidate(tmp_path, SENDER),
        ), "", f"{100 * 2**20}:length,{80 * 2**20}:chunked")  # fmt: skip
    finally:
        upstream.stop()
    assert upstream.seen[0] == ("/v1/upload", 2**30), (upstream.seen, streamed.stderr)
    assert peak < 300 * 2**20, peak
    requests = runs_rows(tmp_path, "SELECT path, status, request_bytes FROM run_requests ORDER BY seq")
    assert [(r["path"], r["status"]) for r in requests] == [("/upload", 200), ("/upload", 413), ("/upload", 413)]
    assert requests[0]["request_bytes"] == 2**30 and requests[2]["request_bytes"] <= 65 * 2**20
    assert all(size < 64 * 2**20 for path, size in upstream.seen[1:]), upstream.seen


@pytest.mark.parametrize("where", ["/out", "/tmp", "/dev/shm"])
def test_writes_past_the_space_limit_are_recorded_and_never_reach_the_disk(tmp_path: Path, where: str) -> None:
    """/out, /tmp and /dev/shm are in memory, each of --space-limit: many files or one
    large one fill it, the run is recorded with limit_hit 'space', and nothing of it was
    ever on the host's disk ($TMPDIR stays empty throughout)."""
    code = (
        "import os\n"
        f"os.makedirs('{where}/many', exist_ok=True)\n"
        "try:\n"
        "    for n in range(100_000):\n"
        f"        with open(f'{where}/many/{{n}}', 'wb') as f:\n"
        "            f.write(b'x' * 4096)\n"
        "except OSError as exc:\n"
        "    print('stopped:', exc.strerror)\n"
    )
    result, _, _, row = run_candidate(tmp_path, "fill", code, "--space-limit", "8MiB")
    assert result.returncode == 1, result.stderr
    assert (row["outcome"], row["limit_hit"]) == ("limit", "space"), row
    assert "stopped: No space left on device" in (Path(row["run_dir"]) / "stdout.txt").read_text()
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize(("what", "code", "limit_hit"), [
    ("files in memory", "open('/dev/shm/x', 'wb').write(b'x' * 300 * 2**20)\ntime.sleep(5)\n", "memory"),
    ("threads", "import threading\n[threading.Thread(target=time.sleep, args=(5,)).start() for _ in range(40)]\n",
     "processes"),
])  # fmt: skip
def test_the_monitor_counts_files_in_memory_and_threads(tmp_path: Path, what: str, code: str, limit_hit: str) -> None:
    """Where there is no cgroup (S8F_DUCK_SANDBOX_LIMITS=monitor), what the candidate
    holds in /tmp, /out and /dev/shm is memory, and each thread counts as a process, as
    a cgroup counts them."""
    os.environ["S8F_DUCK_SANDBOX_LIMITS"] = "monitor"
    try:
        result, _, _ = runner(tmp_path, *run_args(
            tmp_path, what, "--memory-limit", "200MiB", "--space-limit", "512MiB", "--process-limit", "16",
            *python_candidate(tmp_path, "import time\n" + code),
        ))  # fmt: skip
    finally:
        del os.environ["S8F_DUCK_SANDBOX_LIMITS"]
    (row,) = runs_rows(tmp_path)
    assert (row["limits_enforced_by"], row["limit_hit"]) == ("monitor", limit_hit), (row, result.stderr)


DENIED = """
import ctypes, os, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *args):
    result = libc.syscall(number, *args)
    print(name, "denied" if result == -1 and ctypes.get_errno() == 1 else f"allowed ({result})")
call("unshare", 272, 0x10000000)
call("clone", 56, 0x10000000 | 17, 0, 0, 0, 0)
call("mount", 165, b"none", b"/tmp", b"tmpfs", 0, None)
call("io_uring_setup", 425, 8, ctypes.create_string_buffer(120))
call("keyctl", 250, 0, 0)
call("ptrace", 101, 0, 0, 0, 0)
call("bpf", 321, 0, 0, 0)
threading.Thread(target=print, args=("a thread runs",)).start()
print(subprocess.run(["/bin/echo", "a subprocess runs"], capture_output=True, text=True).stdout.strip())
print("pid 1:", open("/proc/1/cmdline").read().replace("\\0", " "))
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the seccomp filter is x86-64's")
def test_what_a_candidate_has_no_use_for_is_denied(tmp_path: Path) -> None:
    """New namespaces, mounts, io_uring, keyrings, ptrace and bpf fail with EPERM (the
    seccomp filter, and bwrap's --disable-userns); threads and processes still work; the
    sandbox's PID 1 shows no host path."""
    result, _, _ = runner(tmp_path, *run_args(tmp_path, "denied", *python_candidate(tmp_path, DENIED)))
    (row,) = runs_rows(tmp_path)
    lines = (Path(row["run_dir"]) / "stdout.txt").read_text().splitlines()
    assert lines[:7] == [f"{name} denied" for name in
                         ("unshare", "clone", "mount", "io_uring_setup", "keyctl", "ptrace", "bpf")], result.stderr
    assert "a thread runs" in lines and "a subprocess runs" in lines
    (pid_one,) = [line for line in lines if line.startswith("pid 1:")]
    assert str(tmp_path) not in pid_one and "bwrap" not in pid_one and str(REPO) not in pid_one, pid_one


@pytest.mark.skipif(os.geteuid() != 0, reason="the runner is not root here: the sandbox runs as its own user anyway")
def test_a_root_runner_gives_the_candidate_no_more_than_an_unprivileged_user(tmp_path: Path) -> None:
    """As root, the sandbox runs as an unprivileged host user: in a directory given with
    --ro, a root-only file (0600) and a root-only directory (0700) stay closed, though
    root could read them, while what anyone may read is read."""
    cache = tmp_path / "model-cache"
    cache.mkdir(mode=0o755)
    cache.chmod(0o755)
    for name, mode in (("readme", 0o644), ("token", 0o600)):
        (cache / name).write_text(f"{name}\n")
        (cache / name).chmod(mode)
    (cache / "private").mkdir(mode=0o700)
    (cache / "private" / "key").write_text("key\n")
    (cache / "private" / "key").chmod(0o644)
    code = (
        "for name in ('readme', 'token', 'private/key'):\n"
        "    try:\n"
        f"        print(open('{cache}/' + name).read().strip())\n"
        "    except PermissionError:\n"
        "        print(name, 'denied')\n"
    )
    result, _, _ = runner(tmp_path, *run_args(tmp_path, "root", "--ro", cache, *python_candidate(tmp_path, code)))
    (row,) = runs_rows(tmp_path)
    assert (Path(row["run_dir"]) / "stdout.txt").read_text().splitlines() == [
        "readme", "token denied", "private/key denied"
    ], result.stderr  # fmt: skip
    assert not list(Path("/tmp").glob("s8f-duck-sandbox-*-stage-*")) or all(
        p.stat().st_mtime < time.time() - 3600 for p in Path("/tmp").glob("s8f-duck-sandbox-*-stage-*")
    )  # the staging directory went with the run


def test_a_submission_that_would_need_decoding_in_python_is_bounded(tmp_path: Path) -> None:
    """A lone surrogate escape sends a reading to Go's decoding in Python, which costs some
    fifty times the file's size: past 16 MiB such a submission is refused, in seconds and
    without the memory."""
    code = (
        "import json\n"
        "answers = [{'id': f'issue-{n}', 'labels': ['x' * 200]} for n in range(100_000)]\n"
        "text = json.dumps({'schema': 'fak-microcontext-submission/1', 'answers': answers})\n"
        "open('/out/submission.json', 'w').write(text.replace('xxxx', '\\\\ud800', 1))\n"
    )
    result, seconds, peak, row = run_candidate(tmp_path, "surrogate", code, "--submission-limit", "64MiB")
    assert row["outcome"] == "unusable_submission", (row, result.stderr)
    assert "needs Go's decoding in Python" in row["message"] and "at most 16 MiB" in row["message"], row["message"]
    assert seconds < 60 and peak < 2 * 2**30, (seconds, peak)


def test_files_past_the_files_limit_end_the_run(tmp_path: Path) -> None:
    """Empty files take no space but each takes memory: their number in /out, /tmp and
    /dev/shm together is bounded (--files-limit), and the run is ended and recorded."""
    code = (
        "import os, time\n"
        "for n in range(5_000):\n"
        "    open(f'/tmp/{n}', 'w').close()\n"
        "time.sleep(10)\n"
    )
    result, seconds, _, row = run_candidate(tmp_path, "files", code, "--files-limit", "1000")
    assert (row["outcome"], row["limit_hit"]) == ("limit", "files"), (row, result.stderr)
    assert seconds < 8, seconds  # ended at the limit, not at the candidate's own end
