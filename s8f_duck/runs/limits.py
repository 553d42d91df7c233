"""Memory and process limits for a sandboxed command, and how much memory it used.

Where the runner may create a cgroup (as root, or in a delegated cgroup v2 subtree) the
kernel enforces both limits and counts the peak: the memory controller OOM-kills past
the limit, the pids controller refuses a fork past it. Elsewhere a monitor samples the
sandbox's processes every 20 ms and kills the sandbox when their resident memory or their
number goes past a limit: coarser (a fast allocation can overshoot by one sample's worth)
but never unlimited. docs/runs.md says which is in use and how to get the exact one.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")
GROUP_PREFIX = "s8f-duck-run-"


@dataclass(frozen=True)
class Limits:
    wall_seconds: float
    memory_bytes: int
    processes: int
    file_bytes: int  # the size of any one file written (RLIMIT_FSIZE)
    output_bytes: int  # captured stdout, and stderr, each
    request_bytes: int = 64 * 2**20  # the body of one request to an allowed endpoint (proxy.py)
    space_bytes: int = 2**30  # each of the sandbox's file systems in memory: /out, /tmp, /dev/shm
    files: int = 100_000  # files and directories in those file systems together


# The sandbox's file systems in memory (sandbox.py mounts each as a tmpfs of space_bytes):
# what is written there is memory, and is counted as the candidate's.
WRITABLE = ("/out", "/tmp", "/dev/shm")


class ResourceControl:
    """The monitor: samples the processes under the sandbox's bwrap."""

    kind = "monitor"

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._peak = 0
        self._hit: str | None = None
        self._cpu_ticks: dict[int, int] = {}  # the last user + system ticks seen per process

    def enter(self) -> None:
        """Called in the child between fork and exec."""

    def exceeded(self, pid: int) -> str | None:
        """The limit the sandbox is past now, if any (called every 20 ms)."""
        tree = descendants(pid)
        rss = sum(_rss(p) for p in tree) + (_in_memory_files(tree[1]) if len(tree) > 1 and is_collector(tree[1]) else 0)
        for p in tree:
            self._cpu_ticks[p] = max(self._cpu_ticks.get(p, 0), _cpu_ticks(p))
        self._peak = max(self._peak, rss)
        if rss > self.limits.memory_bytes:
            self._hit = "memory"
        elif sum(_threads(p) for p in tree) > self.limits.processes + 2:  # bwrap and the collector
            self._hit = "processes"
        return self._hit

    def hit_after(self) -> str | None:
        """A limit found hit once the sandbox has ended."""
        return self._hit

    def peak_memory_bytes(self) -> int:
        return self._peak

    def cpu_seconds(self) -> float:
        """CPU time of the sandbox's processes (the monitor's last samples of them)."""
        return sum(self._cpu_ticks.values()) / TICK

    def kill_all(self) -> None:
        """Nothing beyond bwrap's session to kill."""

    def close(self) -> None:
        """Nothing to remove."""


class CgroupV1Control(ResourceControl):
    """A memory and a pids cgroup of their own, under this process's (cgroup v1)."""

    kind = "cgroup v1"

    def __init__(self, limits: Limits, memory: Path, pids: Path, cpu: Path) -> None:
        super().__init__(limits)
        self.memory, self.pids, self.cpu = memory, pids, cpu
        (memory / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
        swap = memory / "memory.memsw.limit_in_bytes"
        if swap.exists():
            swap.write_text(str(limits.memory_bytes))
        (pids / "pids.max").write_text(str(limits.processes + 2))  # bwrap and the collector
        self._procs = [os.open(group / "cgroup.procs", os.O_WRONLY) for group in (memory, pids, cpu)]

    def enter(self) -> None:
        for fd in self._procs:
            os.write(fd, str(os.getpid()).encode())

    def exceeded(self, pid: int) -> str | None:
        return None  # the kernel enforces both

    def hit_after(self) -> str | None:
        if _field(self.memory / "memory.oom_control", "oom_kill") > 0:
            return "memory"
        if _field(self.pids / "pids.events", "max") > 0:
            return "processes"
        return None

    def peak_memory_bytes(self) -> int:
        return int((self.memory / "memory.max_usage_in_bytes").read_text())

    def cpu_seconds(self) -> float:
        return int((self.cpu / "cpuacct.usage").read_text()) / 1e9

    def kill_all(self) -> None:
        for group in (self.memory, self.pids, self.cpu):
            _kill_listed(group / "cgroup.procs")

    def close(self) -> None:
        for fd in self._procs:
            os.close(fd)
        self._procs = []
        for group in (self.memory, self.pids, self.cpu):
            _remove(group)


class CgroupV2Control(ResourceControl):
    """A cgroup v2 group of its own, with the memory and pids controllers."""

    kind = "cgroup v2"

    def __init__(self, limits: Limits, group: Path) -> None:
        super().__init__(limits)
        self.group = group
        (group / "memory.max").write_text(str(limits.memory_bytes))
        if (group / "memory.swap.max").exists():
            (group / "memory.swap.max").write_text("0")
        (group / "pids.max").write_text(str(limits.processes + 2))  # bwrap and the collector
        self._procs = [os.open(group / "cgroup.procs", os.O_WRONLY)]

    def enter(self) -> None:
        os.write(self._procs[0], str(os.getpid()).encode())

    def exceeded(self, pid: int) -> str | None:
        return None

    def hit_after(self) -> str | None:
        if _field(self.group / "memory.events", "oom_kill") > 0:
            return "memory"
        if _field(self.group / "pids.events", "max") > 0:
            return "processes"
        return None

    def peak_memory_bytes(self) -> int:
        peak = self.group / "memory.peak"
        return int(peak.read_text()) if peak.exists() else 0

    def cpu_seconds(self) -> float:
        return _field(self.group / "cpu.stat", "usage_usec") / 1e6

    def kill_all(self) -> None:
        kill = self.group / "cgroup.kill"
        if kill.exists():
            kill.write_text("1")
        else:
            _kill_listed(self.group / "cgroup.procs")

    def close(self) -> None:
        for fd in self._procs:
            os.close(fd)
        self._procs = []
        _remove(self.group)


def control_for(limits: Limits) -> ResourceControl:
    """The exact (cgroup) control where this process may make one, else the monitor.
    S8F_DUCK_SANDBOX_LIMITS=monitor forces the monitor."""
    if os.environ.get("S8F_DUCK_SANDBOX_LIMITS") != "monitor":
        name = f"{GROUP_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        for make in (_v2, _v1):
            try:
                control = make(limits, name)
            except OSError:
                continue
            if control is not None:
                return control
    return ResourceControl(limits)


def _remove_abandoned(parent: Path) -> None:
    """Remove the empty cgroups of runners that are gone (killed before they could)."""
    for group in parent.glob(f"{GROUP_PREFIX}*"):
        pid = group.name.removeprefix(GROUP_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                group.rmdir()
            except OSError:
                pass


def _own_cgroup(controller: str) -> str | None:
    """This process's cgroup path for a v1 controller, or ('' for) the v2 hierarchy."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if (controller == "" and names == "") or controller in names.split(","):
            return path
    return None


def _v1(limits: Limits, name: str) -> ResourceControl | None:
    groups = []
    for controller in ("memory", "pids", "cpuacct"):
        own = _own_cgroup(controller)
        if own is None or not (CGROUP_ROOT / controller / "cgroup.procs").exists():
            return None
        groups.append(CGROUP_ROOT / controller / own.lstrip("/") / name)
        _remove_abandoned(groups[-1].parent)
    made: list[Path] = []
    try:
        for group in groups:
            group.mkdir()
            made.append(group)
        return CgroupV1Control(limits, *groups)
    except OSError:
        for group in made:
            _remove(group)
        raise


def _v2(limits: Limits, name: str) -> ResourceControl | None:
    if not (CGROUP_ROOT / "cgroup.controllers").exists():
        return None
    own = _own_cgroup("")
    if own is None:
        return None
    parent = CGROUP_ROOT / own.lstrip("/")
    needed = {"memory", "pids"}
    if not needed <= set((parent / "cgroup.subtree_control").read_text().split()):
        return None  # enabling them here would break the no-internal-processes rule
    _remove_abandoned(parent)
    group = parent / name
    group.mkdir()
    try:
        return CgroupV2Control(limits, group)
    except OSError:
        _remove(group)
        raise


def _field(path: Path, key: str) -> int:
    for line in path.read_text().splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _kill_listed(procs: Path) -> None:
    try:
        listed = procs.read_text().split()
    except OSError:
        return
    for pid in listed:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _remove(group: Path) -> None:
    """Remove a cgroup once its processes are gone (the kernel reaps them briefly)."""
    for _ in range(250):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            _kill_listed(group / "cgroup.procs")
            time.sleep(0.02)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def descendants(pid: int) -> list[int]:
    tree, found, todo = _children(), [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += tree.get(current, [])
    return found


COLLECTOR_NAME = b"s8f-collect"  # the collector's $0 (sandbox.COLLECTOR), on its command line


def is_collector(pid: int) -> bool:
    """Whether pid is the sandbox's collector, running: its root is then the sandbox's.
    (Until bwrap has made the sandbox and run it, the process's root is the host's, whose
    /tmp is no file system of the sandbox's.)"""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return argv[:2] == [b"/bin/sh", b"-c"] and argv[3:4] == [COLLECTOR_NAME]  # (bwrap's own names it later)


def _in_memory_files(inside: int) -> int:
    """Bytes held by the sandbox's file systems in memory, seen through the root of one of
    its processes (a tmpfs's pages are memory whoever maps them, and a cgroup counts them)."""
    return sum(bytes_used for bytes_used, _ in _writable_usage(inside))


def files_in_memory(inside: int) -> int:
    """Files, directories and links in the sandbox's file systems in memory, together."""
    return sum(files for _, files in _writable_usage(inside))


def files_at(root: Path) -> int:
    """Files, directories and links in the sandbox's file systems in memory, seen through
    the sandbox's root (/proc/PID/root)."""
    return sum(files for _, files in _writable_usage_at(str(root)))


def _writable_usage(inside: int) -> list[tuple[int, int]]:
    """(bytes, inodes) in use in each of the sandbox's file systems in memory."""
    return _writable_usage_at(f"/proc/{inside}/root")


def _writable_usage_at(root: str) -> list[tuple[int, int]]:
    usage = []
    for path in WRITABLE:
        try:
            status = os.statvfs(f"{root}{path}")
        except OSError:
            continue
        usage.append(((status.f_blocks - status.f_bfree) * status.f_frsize, status.f_files - status.f_ffree))
    return usage


def _threads(pid: int) -> int:
    """A process's threads, each of which a pids cgroup counts as a task."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, IndexError, ValueError):
        return 0


def _rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0
