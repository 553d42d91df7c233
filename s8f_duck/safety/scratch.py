"""Private work directories, one per run and place, and removals in the background.

A command keeps every temporary file in directories of its own, created 0700 and named
`s8f-duck-work-<pid>-<random>` (in $TMPDIR: the dump's parts, the work database, DuckDB's
spill files, verify's re-derived artifacts) or `.s8f-duck-work-<pid>-<random>` (beside
the outputs: the files that become them, commit.py). The command line makes its $TMPDIR
directory Python's temporary directory (`start_run`), so whatever any module creates with
`tempfile` lands there. The process holds an exclusive flock on each such directory for
as long as it lives; the kernel releases it however the process ends (kill -9 too). A
directory whose lock can be taken is therefore a dead run's, and the next command that
creates one in the same place removes it (`clean_stale`; one holding an interrupted
commit is first finished or undone, commit.py).

Trees are removed by trees.remove_tree: a loop, through directory descriptors, following
no link, so that no shape of tree (a candidate's 3,000 levels) can fail a later command.

Deleting a large file is slow work for the kernel: at a million issues, removing the
3.7 GB of dump parts took 0.9 s and the 4 GB work database 1.1 s, during which nothing
else ran. A directory handed to `remove_later` is deleted on a thread of its own while
the command goes on; `wait_for_removals` (called by freeze before it returns, and by
Python itself at exit, the threads not being daemons) waits until they are all gone.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import re
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from s8f_duck.safety.trees import remove_tree

WORK_PREFIX = "s8f-duck-work-"
LEFTOVER_PREFIX = "s8f-duck-leftover-"  # a dead run's directory that could not be removed (_set_aside)
_WORK_NAME = re.compile(r"\.?s8f-duck-work-\d+-")
JOURNAL = "commit.json"  # a multi-file commit's journal, inside the work directory beside the outputs

# Held while outputs are renamed into place (and while an interrupted commit is finished):
# a signal's clean-up waits for it, so it never leaves half a commit (interrupts.py).
CRITICAL = threading.RLock()

_owned: dict[Path, int] = {}  # this process's work directories -> the descriptor holding the lock
_kept: set[Path] = set()  # work directories whose commit could not be finished: left for the next run
_removals: list[threading.Thread] = []


def work_directory(parent: Path, *, hidden: bool, clean: bool = True) -> Path:
    """A new private directory in parent, locked by this process until it is released
    (or the process ends); dead runs' directories there are removed first (clean)."""
    if clean:
        clean_stale(parent)
    prefix = f"{'.' if hidden else ''}{WORK_PREFIX}{os.getpid()}-"
    while True:
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:  # a cleaner took it for a dead run's between the two calls
            continue
        if _try_lock(fd) and os.fstat(fd).st_ino == _inode(path):
            _owned[path] = fd
            return path
        os.close(fd)  # lost the same race: make another


def release(path: Path) -> None:
    """Remove one of this process's work directories (unless kept, or holding a journal: a
    commit that did not end) and drop its lock."""
    fd = _owned.pop(path, None)
    if path not in _kept and not (path / JOURNAL).exists():
        remove_tree(path)
    if fd is not None:
        os.close(fd)


def keep(path: Path) -> None:
    """Leave a work directory in place when this process ends (it holds a journal)."""
    _kept.add(path)


def remove_owned() -> None:
    """Remove every work directory of this process now (on a signal, interrupts.py); other
    threads may still be writing into them, so each is tried a few times."""
    for path in list(_owned):
        if path in _kept:
            continue
        for _ in range(5):
            if remove_tree(path):
                break


def clean_stale(parent: Path, recover: Callable[[Path], bool] | None = None) -> None:
    """Remove the work directories in parent left by runs that have ended. One holding a
    commit journal is removed only when recover(directory) finishes or undoes it (True);
    without recover it is left for a command that touches the outputs (commit.py)."""
    for path, fd in _stale(parent):
        try:
            if (path / JOURNAL).exists() and not (recover is not None and recover(path)):
                continue
            if not remove_tree(path):
                _set_aside(path)
        finally:
            os.close(fd)


def _set_aside(path: Path) -> None:
    """A dead run's directory that cannot be removed (a file the user may not delete) is
    renamed out of the work directories' names, so that it is reported once and no later
    command tries again."""
    leftover = path.with_name(LEFTOVER_PREFIX + path.name.lstrip(".").removeprefix(WORK_PREFIX))
    try:
        os.rename(path, leftover)
    except OSError as exc:
        warn(f"cannot remove or set aside {path} ({exc.strerror or exc}); remove it by hand")
        return
    warn(f"cannot remove a finished run's temporary files; they are set aside in {leftover}: remove them by hand")


def _stale(parent: Path) -> Iterator[tuple[Path, int]]:
    """Dead runs' work directories in parent, each locked (by the descriptor given) while the
    caller handles it; the caller closes the descriptor."""
    try:
        names = [name for name in os.listdir(parent) if _WORK_NAME.match(name)]
    except OSError:
        return
    for name in names:
        path = Path(parent) / name
        fd = lock_dead(path)
        if fd is not None:
            yield path, fd


def lock_dead(path: Path) -> int | None:
    """A descriptor holding the lock of a dead run's work directory, or None when the
    directory is alive, gone, not a directory, or another user's."""
    try:
        status = os.lstat(path)
        if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
            return None
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    if _try_lock(fd):
        return fd
    os.close(fd)
    return None


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _inode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_ino
    except OSError:
        return None


def start_run() -> Path:
    """For the command line: this run's directory in $TMPDIR, made Python's temporary
    directory (every tempfile call of any module lands in it), removed at exit."""
    path = work_directory(Path(tempfile.gettempdir()), hidden=False)
    tempfile.tempdir = str(path)
    atexit.register(_end_run, path)
    return path


def _end_run(path: Path) -> None:
    wait_for_removals()
    release(path)
    for other in list(_owned):  # any work directory beside outputs that a failure left open
        release(other)


def remove_later(path: Path) -> None:
    """Delete a directory and everything in it, on another thread."""
    thread = threading.Thread(target=remove_tree, args=(path,), name=f"remove {path}")
    thread.start()
    _removals.append(thread)


def wait_for_removals() -> None:
    """Return once every directory handed to remove_later is deleted."""
    while _removals:
        _removals.pop().join()


@contextmanager
def scratch_directory(prefix: str) -> Iterator[Path]:
    """A new temporary directory, removed in the background when the block ends."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        remove_later(path)


def warn(message: str) -> None:
    """One line on stderr that is not an error of the command."""
    print(f"s8f-duck: {message}", file=sys.stderr, flush=True)
