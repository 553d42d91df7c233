"""What a candidate leaves behind is collected truly: processes left running, a submission
grown while it is copied, a collection that fails, a forged status line, /dev, files made just
before the end (real CLI, real bubblewrap, small C programs built here with gcc)."""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, S8F_PUBLIC, needs_s8f, run_cli
from test_run import python_candidate, run_args, runs_rows

from s8f_duck.runs import sandbox

pytestmark = needs_s8f

LEFTOVERS_C = Path(__file__).parent / "candidates" / "leftovers.c"


@pytest.fixture(scope="module")
def candidate_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A candidate directory with `leftovers` (tests/candidates/leftovers.c) and a valid
    submission, sub.json (the SQL baseline's), both readable by the sandbox's user."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc to build the C candidate with")
    directory = tmp_path_factory.mktemp("leftovers")
    built = subprocess.run(["gcc", "-O1", "-pthread", "-o", directory / "leftovers", LEFTOVERS_C],
                           capture_output=True, text=True)  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", directory / "sub.json").returncode == 0
    # the same, 15 MiB long (JSON allows the spaces): its copy takes long enough for a writer to race it
    (directory / "long.json").write_bytes((directory / "sub.json").read_bytes() + b" " * 15 * 2**20)
    for path in (directory, directory / "leftovers", directory / "sub.json", directory / "long.json"):
        path.chmod(path.stat().st_mode | stat.S_IROTH | stat.S_IXOTH | stat.S_IRGRP | stat.S_IXGRP)
    return directory


def run_shell(tmp_path: Path, candidate_dir: Path, name: str, script: str, *options: str) -> dict[str, Any]:
    """`script` run by /bin/sh (dash here) in candidate_dir as /candidate, after the valid
    submission is copied to /out/submission.json; the run's row (the last one)."""
    result = run_cli(*run_args(tmp_path, name, "--candidate-dir", candidate_dir, *options), "--", "/bin/sh", "-c",
                     f"cp sub.json /out/submission.json || exit 9\n{script}")  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "internal error" not in result.stderr
    return runs_rows(tmp_path)[-1]


def stdout_of(row: dict[str, Any]) -> str:
    return (Path(row["run_dir"]) / "stdout.txt").read_text()


def left_running(marker: str) -> list[str]:
    return [line for line in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
            if marker in line]  # fmt: skip


@pytest.mark.parametrize(("what", "script"), [
    ("sleep", "sleep 3737 &"),
    ("sleep in a new session", "setsid sleep 3737 &"),
    ("busy loop", "sh -c 'while :; do :; done; : 3737' &"),
    ("all three", "sleep 3737 & setsid sleep 3737 & sh -c 'while :; do :; done; : 3737' &"),
])  # fmt: skip
def test_a_valid_submission_beside_a_process_left_running_is_graded(
    tmp_path: Path, candidate_dir: Path, what: str, script: str
) -> None:
    """The collector's kill -1 is one dash takes (`kill -s KILL -- -1`): what the candidate
    left running is killed at its end, and its submission is graded at once."""
    row = run_shell(tmp_path, candidate_dir, what, script)
    assert (row["outcome"], row["exit_status"], row["exact_records"]) == ("graded", 0, 680), row
    assert left_running("3737") == []


@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_the_collector_kills_what_is_left_under_dash_and_bash(shell: str) -> None:
    """The collector's own words (sandbox.COLLECTOR) run by each shell as the PID 1 of a
    sandbox: what the command left running (a sleep, one in a new session) is gone when
    the status comes, and the collector ends with the command's status."""
    path = shutil.which(shell)
    if path is None:
        pytest.skip(f"no {shell} here")
    status_read, status_write = os.pipe()
    release_read, release_write = os.pipe()

    def pipes_at_3_and_4() -> None:
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (status_write, release_read)]
        for number, fd in enumerate(high, start=3):
            os.dup2(fd, number)

    args = [sandbox.bwrap_path(), "--unshare-all", "--die-with-parent", "--as-pid-1", "--ro-bind", "/", "/",
            "--proc", "/proc", "--dev", "/dev", "--", path, "-c", sandbox.COLLECTOR, "s8f-collect",
            "/bin/sh", "-c", "sleep 3738 & setsid sleep 3738 & exit 3"]  # fmt: skip
    proc = subprocess.Popen(args, preexec_fn=pipes_at_3_and_4, pass_fds=(3, 4))
    try:
        os.close(status_write)
        os.close(release_read)
        with os.fdopen(status_read, "rb") as status:
            reported = status.read()  # to its end: the collector has closed it
        assert reported == b"3\n"
        assert left_running("sleep 3738") == []
    finally:
        os.close(release_write)
        assert proc.wait(timeout=30) == 3


def test_a_submission_grown_by_a_live_thread_is_not_kept_beyond_the_limit(tmp_path: Path, candidate_dir: Path) -> None:
    """A child whose first thread has exited (a zombie to /proc/PID/stat) keeps a thread
    that appends 64 MiB to the submission once the runner opens it: every thread is killed
    before the submission is opened, and only the size checked is copied."""
    row = run_shell(tmp_path, candidate_dir, "grow", "cp long.json /out/submission.json && ./leftovers grow",
                    "--submission-limit", "16MiB")  # fmt: skip
    copied = Path(row["run_dir"]) / "submission.json"
    assert (row["outcome"], row["exit_status"]) == ("graded", 0), row
    assert copied.read_bytes() == (candidate_dir / "long.json").read_bytes()


def test_a_submission_that_is_a_directory_is_recorded(tmp_path: Path, candidate_dir: Path) -> None:
    result = run_cli(*run_args(tmp_path, "directory", "--candidate-dir", candidate_dir), "--", "/bin/sh", "-c",
                     "mkdir /out/submission.json")  # fmt: skip
    assert result.returncode == 1 and "internal error" not in result.stderr, result.stderr
    (row,) = runs_rows(tmp_path)
    assert (row["outcome"], row["exit_status"]) == ("no_submission", 0), row
    assert row["message"] == "the candidate wrote /out/submission.json as a directory"


def test_files_made_and_removed_during_the_walk_never_stop_the_record(tmp_path: Path, candidate_dir: Path) -> None:
    """A child left making and removing files and directories under /out as fast as it can:
    it is killed before the walk, and the walk passes over what goes (3 of 3)."""
    rows = [run_shell(tmp_path, candidate_dir, f"churn {n}", "./leftovers churn") for n in range(3)]
    assert [(row["outcome"], row["exit_status"]) for row in rows] == [("graded", 0)] * 3, rows


@pytest.mark.parametrize(("written", "status", "outcome"), [
    ("0\n", 3, "failed"),  # a false success
    ("7\n8\n", 0, "graded"),  # two lines
    ("x" * 100, 5, "failed"),  # no number
])  # fmt: skip
def test_a_forged_status_line_is_refused_and_the_true_exit_status_recorded(
    tmp_path: Path, candidate_dir: Path, written: str, status: int, outcome: str
) -> None:
    """The collector's status pipe is out of the candidate's reach (pidfd_getfd is denied,
    and the pipe is the runner's, which /proc/1/fd does not reopen for the sandbox's user);
    whatever came on it, the status recorded is the command's own (the collector's exit,
    which bwrap ends with)."""
    row = run_shell(tmp_path, candidate_dir, "forge", f"./leftovers forge '{written}'; exit {status}")
    assert (row["outcome"], row["exit_status"]) == (outcome, status), row
    said = stdout_of(row).splitlines()
    assert said[0] == "pidfd_getfd denied (EPERM)" and said[1] in ("reopen Permission denied",), said


CALLS = """
import ctypes, socket
libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *args):
    result = libc.syscall(number, *args)
    print(name, "denied" if result == -1 and ctypes.get_errno() == 1 else f"allowed ({result})")
def family(name, number):
    try:
        socket.socket(number, socket.SOCK_DGRAM if number != socket.AF_UNIX else socket.SOCK_STREAM).close()
        print(name, "allowed")
    except PermissionError:
        print(name, "denied")
    except OSError as exc:
        print(name, "failed", exc.errno)
pidfd = libc.syscall(434, 1, 0)
call("pidfd_getfd", 438, pidfd, 0, 0)
call("kcmp", 312, 1, 1, 0, 0, 0)
call("personality", 135, 0xFFFFFFFF)
call("memfd_secret", 447, 0)
call("modify_ldt", 154, 0, None, 0)
family("AF_NETLINK", 16)
family("AF_VSOCK", 40)
family("AF_INET", socket.AF_INET)
family("AF_UNIX", socket.AF_UNIX)
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the seccomp filter is x86-64's")
def test_pidfd_getfd_and_the_other_open_calls_are_denied(tmp_path: Path) -> None:
    result = run_cli(*run_args(tmp_path, "calls"), *python_candidate(tmp_path, CALLS))
    (row,) = runs_rows(tmp_path)
    assert stdout_of(row).splitlines() == [
        "pidfd_getfd denied", "kcmp denied", "personality denied", "memfd_secret denied", "modify_ldt denied",
        "AF_NETLINK denied", "AF_VSOCK denied", "AF_INET allowed", "AF_UNIX allowed",
    ], result.stderr  # fmt: skip


@pytest.mark.parametrize("limits", ["cgroup", "monitor"])
def test_dev_stores_nothing(tmp_path: Path, candidate_dir: Path, limits: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """/dev is read-only (bwrap's own tmpfs, unbounded, is no store): 0.5 GiB and 20,000
    files written there under --space-limit 64MiB --files-limit 1000 are refused, none is
    stored or counted, and the device nodes a program needs still work (under a cgroup,
    and under the monitor, which once saw none of it as memory)."""
    if limits == "monitor":
        monkeypatch.setenv("S8F_DUCK_SANDBOX_LIMITS", "monitor")
    row = run_shell(tmp_path, candidate_dir, "dev", "./leftovers dev && head -c 8 /dev/urandom > /dev/null && "
                    "head -c 8 /dev/zero | wc -c && echo shm > /dev/shm/x && cat /dev/shm/x",
                    "--space-limit", "64MiB", "--files-limit", "1000")  # fmt: skip
    assert stdout_of(row).splitlines() == [
        "open /dev/big: Read-only file system", "stored 0 bytes and 0 files in /dev", "8", "shm"
    ], row  # fmt: skip
    assert (row["outcome"], row["limit_hit"]) == ("graded", None), row
    assert row["peak_memory_bytes"] < 256 * 2**20, row["peak_memory_bytes"]
    assert limits != "monitor" or row["limits_enforced_by"] == "monitor", row


def test_files_made_just_before_the_end_are_caught_every_time(tmp_path: Path, candidate_dir: Path) -> None:
    """1,600 files made in the last milliseconds under --files-limit 1000: the limit is
    checked once more when the command has ended, so no such run is graded (5 of 5)."""
    rows = [run_shell(tmp_path, candidate_dir, f"files {n}", "./leftovers files 1600", "--files-limit", "1000")
            for n in range(5)]  # fmt: skip
    assert [(row["outcome"], row["limit_hit"]) for row in rows] == [("limit", "files")] * 5, rows



def test_mountinfo_shows_what_docs_safety_says(tmp_path: Path, candidate_dir: Path) -> None:
    """/proc/self/mountinfo inside names, of the host, exactly what docs/safety.md lists: the
    sources of the mounts (the public corpus, the candidate directory, each --ro and, with
    an endpoint, the sockets' directory and the runner's Python), the system's own paths it
    shows read-only, and nothing of the checkout."""
    shown = tmp_path / "shown"
    shown.mkdir()
    shown.chmod(0o755)
    run_cli(*run_args(tmp_path, "mountinfo", "--candidate-dir", candidate_dir, "--ro", shown, "--allow-endpoint",
                      "up=http://127.0.0.1:9/v1"), "--", "/bin/cat", "/proc/self/mountinfo")  # fmt: skip
    (row,) = runs_rows(tmp_path)
    mounts = [line.split(" ") for line in stdout_of(row).splitlines()]
    sources = {fields[3]: fields[4] for fields in mounts if fields[3] not in ("/", "/newroot")}
    system = {source for source, target in sources.items() if source == target and source.startswith(("/usr", "/etc"))}
    system |= {source for source, target in sources.items() if target.startswith(("/dev/", "/etc/"))}  # nodes, zone
    sockets = {source for source in sources if source.endswith("/endpoints")}
    assert len(sockets) == 1 and Path(next(iter(sockets))).parent.name.startswith("s8f-duck-sandbox-"), sources
    python = {sys.base_prefix} - {"/usr"} if not Path(sys.base_prefix).is_relative_to("/usr") else set()
    assert set(sources) - system - sockets == {
        os.path.realpath(S8F_PUBLIC), str(candidate_dir.resolve()), str(shown.resolve()), *python
    }, sources  # fmt: skip
    assert str(REPO) not in stdout_of(row)
