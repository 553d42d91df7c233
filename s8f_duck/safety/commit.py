"""Outputs that appear all at once or not at all, also when the command is killed.

Each output is written to a file of its name in a private work directory beside it
(`.s8f-duck-work-<pid>-<random>/new/`, scratch.py: on the same file system) and renamed
into place by `Outputs.commit`. One output is one rename. Several (a triple, with --db
and --parquet) are committed as a unit:

1. each output that exists is hard-linked into the work directory (`old/`, its backup);
2. a journal (`commit.json`, in each work directory of the commit) lists every new
   file, its output path, the new and the old file's inode and the backup;
3. the renames; 4. the journals are removed.

A command killed between 2 and 4 leaves work directories whose lock the kernel has
released. The next command with a path in one of those directories (`Outputs`,
`recover_beside`) finds the journal and finishes the commit when every new file not
yet renamed is still there (they are complete before the journal is written), or else
undoes it from the backups, and says which on stderr. A rename that fails (an immutable
or busy file, an I/O error) undoes the renames before it at once. An output replaced
since by something else is left as it is. Not covered: power loss (nothing is fsync'ed).

A command writing outputs holds an exclusive flock on each of their directories (taken
in path order) until it ends: two commands writing into one directory run one after the
other, and the second says that it waits.

A new file gets the mode (and, where allowed, the owner) of the file it replaces; one
that replaces nothing is 0666 less the umask, or 0600 when private (an answer bundle, a
database holding the answers): never readable by others unless the replaced file was.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from s8f_duck.safety import scratch
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.paths import make_parent, writable_kind
from s8f_duck.safety.trees import remove_tree

_rename = os.replace  # the one call that moves a file into place (tests make it fail or stop)


def _read_umask() -> int:
    try:
        with open("/proc/self/status") as status:  # Linux: read without setting it
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_umask = _read_umask()  # what new ordinary outputs are created with


def private_umask() -> None:
    """For the command line: create every file of the process 0600 (every directory
    0700) from now on; outputs still get their modes at commit, from the umask before."""
    global _umask
    _umask = os.umask(0o077)


class Outputs:
    """Files that become the outputs all at once, only when everything succeeded.

    finals: every output path the command may write (their directories are locked now,
    in order); private: those of them that are created 0600."""

    def __init__(self, finals: Iterable[Path | None] = (), private: Iterable[Path | None] = ()) -> None:
        self._locked: list[str] = []  # the outputs' real directories, locked
        self._work: dict[str, Path] = {}  # an output's real directory -> this command's work directory there
        self._pending: dict[Path, Path] = {}  # output -> its new file
        self._private = {Path(p) for p in private if p is not None}
        self._journals: list[Path] = []
        self._created: list[Path] = []  # directories made for the outputs, removed again when nothing is written
        self._committed = False
        try:
            self.reserve([Path(p) for p in [*finals, *self._private] if p is not None])
        except BaseException:
            self.discard()
            raise

    def reserve(self, finals: Sequence[Path]) -> None:
        """Lock the outputs' directories (in order), finish or undo interrupted commits
        there, remove dead runs' work directories, and make this command's own."""
        for final in finals:
            writable_kind(final)
            missing = [d for d in Path(final).absolute().parents if not d.exists()]
            self._created += [d for d in missing if d not in self._created]
        directories = sorted({_directory(final) for final in finals} - set(self._locked))
        for directory in directories:
            lock_directory(directory, wait=True)
            self._locked.append(directory)
            try:
                scratch.clean_stale(Path(directory), _recover)
                work = scratch.work_directory(Path(directory), hidden=True, clean=False)
                (work / "new").mkdir()
            except OSError as exc:
                raise UnusableInput(f"{directory}: cannot write there: {_write_refusal(directory, exc)}") from None
            self._work[directory] = work

    def temp_for(self, final: Path, *, private: bool = False) -> Path:
        """An empty new file that commit() renames to final."""
        final = Path(final)
        if private:
            self._private.add(final)
        directory = _directory(final)
        if directory not in self._locked:
            self.reserve([final])
        temp = self._work[directory] / "new" / final.name
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self._pending[final] = temp
        return temp

    def commit(self) -> None:
        """Rename every new file into place, as one unit (the module's docstring)."""
        with scratch.CRITICAL:
            several = len(self._pending) > 1
            files = [self._prepare(final, temp, several=several) for final, temp in self._pending.items()]
            if len(files) > 1:
                self._write_journals(files)
            done: list[dict[str, Any]] = []
            for entry in files:
                try:
                    _rename(entry["temp"], entry["final"])
                except OSError as exc:
                    self._fail(entry, exc, done)
                done.append(entry)
            for journal in self._journals:
                journal.unlink()
            self._journals.clear()
            self._pending.clear()
            self._committed = True

    def discard(self) -> None:
        """Remove the new files not committed, the work directories, and the locks; when
        nothing was committed, the directories made for the outputs that stayed empty."""
        for work in self._work.values():
            scratch.release(work)
        for directory in self._locked:
            unlock_directory(directory)
        self._work.clear()
        self._locked.clear()
        self._pending.clear()
        if not self._committed:
            for directory in sorted(self._created, key=lambda d: len(d.parts), reverse=True):
                try:
                    directory.rmdir()  # (only if empty: another command's file stays)
                except OSError:
                    pass
        self._created.clear()

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, *_: object) -> None:
        self.discard()

    def _prepare(self, final: Path, temp: Path, *, several: bool) -> dict[str, Any]:
        """The new file's mode and owner; for a commit of several files, the old one's backup."""
        writable_kind(final)  # still (it was checked when reserved)
        old = _lstat(final)
        if old is not None:
            mode = stat.S_IMODE(old.st_mode)
            if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.chown(temp, old.st_uid, old.st_gid)
                except OSError:
                    pass
        else:
            mode = 0o600 & ~_umask if final in self._private else 0o666 & ~_umask
        os.chmod(temp, mode)
        backup = None
        if several and old is not None:
            backup = temp.parent.parent / "old" / final.name
            backup.parent.mkdir(exist_ok=True)
            try:
                os.link(final, backup, follow_symlinks=False)
            except OSError:  # no hard links here: a copy
                shutil.copy2(final, backup)
        return {
            "temp": str(temp), "final": os.path.join(_directory(final), final.name), "backup": backup and str(backup),
            "new": _inode(_lstat(temp)), "old": _inode(old),
        }  # fmt: skip

    def _write_journals(self, files: list[dict[str, Any]]) -> None:
        works = sorted({Path(entry["temp"]).parent.parent for entry in files})
        journal = json.dumps({"pid": os.getpid(), "work": [str(w) for w in works], "files": files})
        for work in works:
            part = work / (scratch.JOURNAL + ".part")
            part.write_text(journal, encoding="utf-8", errors="surrogateescape")
            os.replace(part, work / scratch.JOURNAL)  # a journal is whole or absent
            self._journals.append(work / scratch.JOURNAL)

    def _fail(self, entry: dict[str, Any], exc: OSError, done: list[dict[str, Any]]) -> None:
        """A rename failed: undo the ones before it, or leave the journals for the next command."""
        reason = exc.strerror or str(exc)
        try:
            _undo(done)
        except OSError as again:
            for journal in self._journals:
                scratch.keep(journal.parent)
            self._journals.clear()
            raise UnusableInput(
                f"{entry['final']}: cannot replace it: {reason}; undoing the outputs already renamed failed too "
                f"({again.strerror or again}): the next s8f-duck command given these paths finishes or undoes it"
            ) from None
        for journal in self._journals:
            journal.unlink(missing_ok=True)
        self._journals.clear()
        raise UnusableInput(f"{entry['final']}: cannot replace it: {reason}; every output is left as it was") from None


def _directory(final: Path) -> str:
    """The real path of an output's directory, created when missing (UnusableInput when it
    cannot be)."""
    final = Path(final)
    if final.is_dir():
        raise UnusableInput(f"{final}: is a directory, expected a file path")
    if not final.parent.is_dir():
        make_parent(final)
    return os.path.realpath(final.parent)


def _lstat(path: Path | str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _inode(status: os.stat_result | None) -> list[int] | None:
    return None if status is None else [status.st_dev, status.st_ino]


def _undo(files: Iterable[dict[str, Any]]) -> bool:
    """Put back what was at each output before (the backup, or nothing) where the new file
    is now; True when something was put back."""
    undone = False
    for entry in files:
        if _inode(_lstat(entry["final"])) != entry["new"]:
            continue  # not renamed, or replaced since
        if entry["backup"] is not None:
            _rename(entry["backup"], entry["final"])
        elif entry["old"] is None:
            os.unlink(entry["final"])
        else:
            raise FileNotFoundError(f"no backup of {entry['final']}")
        undone = True
    return undone


def _finish(files: list[dict[str, Any]]) -> str:
    """Finish an interrupted commit, or undo it; which of the two happened ('' for neither)."""
    now = [_inode(_lstat(entry["final"])) for entry in files]
    forward = all(
        current == entry["new"] or (current == entry["old"] and os.path.exists(entry["temp"]))
        for entry, current in zip(files, now)
    )
    if forward:
        left = [entry for entry, current in zip(files, now) if current != entry["new"]]
        for entry in left:
            _rename(entry["temp"], entry["final"])
        return "finished" if left else ""
    return "undid" if _undo(files) else ""


def _recover(work: Path) -> bool:
    """Finish or undo the commit whose journal a dead run left in work (locked by the
    caller, scratch.clean_stale); True when it is done and the directory can go."""
    try:
        journal = json.loads((work / scratch.JOURNAL).read_text(encoding="utf-8", errors="surrogateescape"))
        files = journal["files"]
    except (OSError, ValueError, KeyError, TypeError):
        scratch.warn(f"{work}: an unreadable commit journal is left there")
        return False
    others = [Path(w) for w in journal.get("work", []) if Path(w) != work and os.path.lexists(w)]
    held: list[int] = []
    locked: list[str] = []
    try:
        for other in others:  # the same commit's other work directories, also dead
            fd = scratch.lock_dead(other)
            if fd is None:
                return False
            held.append(fd)
        for directory in sorted({os.path.realpath(Path(entry["final"]).parent) for entry in files}):
            if not lock_directory(directory, wait=False):
                return False  # a live command writes there: it finishes this commit itself
            locked.append(directory)
        with scratch.CRITICAL:
            try:
                done = _finish(files)
            except OSError as exc:
                scratch.warn(f"an interrupted commit of {_names(files)} could not be finished or undone "
                             f"({exc.strerror or exc}); it is left in {work}")  # fmt: skip
                return False
            for other in others:
                remove_tree(other)
        if done == "finished":
            scratch.warn(f"finished an interrupted commit (process {journal.get('pid')} stopped between its renames): "
                         f"{_names(files)} are the new files")  # fmt: skip
        elif done == "undid":
            scratch.warn(f"undid an interrupted commit (process {journal.get('pid')} stopped between its renames): "
                         f"{_names(files)} are the files as they were before it")  # fmt: skip
        return True
    finally:
        for fd in held:
            os.close(fd)
        for directory in locked:
            unlock_directory(directory)


def _names(files: list[dict[str, Any]]) -> str:
    return ", ".join(entry["final"] for entry in files)


def recover_beside(paths: Iterable[Path]) -> None:
    """Finish or undo interrupted commits in the directories of these (input) paths, and
    remove dead runs' work directories there."""
    for directory in sorted({os.path.realpath(Path(path).parent) for path in paths}):
        scratch.clean_stale(Path(directory), _recover)


_directory_locks: dict[str, list[int]] = {}  # real path -> [descriptor, times taken by this process]


def lock_directory(directory: str, *, wait: bool) -> bool:
    """Take the exclusive flock on a directory (this process may take it several times);
    with wait, wait for another command holding it, else return False."""
    if directory in _directory_locks:
        _directory_locks[directory][1] += 1
        return True
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if not wait:
            os.close(fd)
            return False
        scratch.warn(f"waiting for another s8f-duck command writing in {directory} to end")
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        pass  # a file system without flock (some network ones): no exclusion there
    _directory_locks[directory] = [fd, 1]
    return True


def unlock_directory(directory: str) -> None:
    held = _directory_locks.get(directory)
    if held is None:
        return
    held[1] -= 1
    if not held[1]:
        os.close(held[0])
        del _directory_locks[directory]


def _write_refusal(directory: str | Path, exc: OSError) -> str:
    """Why files cannot be made in an existing directory, in words: a missing-file error
    there means the file system takes no new files (/proc, /sys), not that it is absent."""
    if exc.errno == errno.ENOENT and os.path.isdir(directory):
        return "the file system there takes no new files (is it /proc or /sys?)"
    return exc.strerror or str(exc)
