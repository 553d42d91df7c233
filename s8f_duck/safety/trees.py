"""Directory trees that someone else made (a candidate's /out, a dead run's scratch), walked
and removed without trusting their shape.

Every directory is opened relative to its parent's descriptor and never through a link, and
the walk is a loop, not a recursion: a tree 3,000 levels deep is deeper than Python's
recursion limit (shutil.rmtree and Path.rglob raise RecursionError on it) and its paths are
longer than the kernel takes (ENAMETOOLONG). Only one directory is open at a time.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path) -> bool:
    """Remove a file or a directory and everything in it, however deep, following no link
    (a link is removed, not what it names). Never raises: returns whether it is gone."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return True
        parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        _empty(parent, path.name)
        os.rmdir(path.name, dir_fd=parent)
    except OSError:
        pass
    finally:
        os.close(parent)
    return not os.path.lexists(path)


def _empty(parent: int, name: str) -> None:
    """Remove everything inside parent/name, depth first, one open directory at a time;
    an entry that cannot be removed raises OSError (so the loop always makes progress)."""
    fd = _open_directory(parent, name)
    below: list[str] = []  # the names from parent/name down to the directory fd is
    try:
        while True:
            child = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        child = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if child is not None:
                inner = _open_directory(fd, child)
                os.close(fd)
                fd = inner
                below.append(child)
                continue
            if not below:
                return
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = up
            os.rmdir(below.pop(), dir_fd=fd)
    finally:
        os.close(fd)


def _open_directory(parent: int, name: str) -> int:
    """A directory opened for removing what it holds: made readable and writable first when
    its maker took that away (chmod 000), as its owner may."""
    try:
        fd = os.open(name, _DIRECTORY, dir_fd=parent)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=parent)  # a directory (checked by the caller), not a link
        fd = os.open(name, _DIRECTORY, dir_fd=parent)
    if stat.S_IMODE(os.fstat(fd).st_mode) & 0o700 != 0o700:
        os.fchmod(fd, 0o700)
    return fd


def file_sizes(root: Path) -> Iterator[int]:
    """The apparent size of each regular file under root, depth first (links, devices,
    pipes and sockets are not files here and are never opened). The caller stops the walk
    when it has seen enough. An entry that goes or changes during the walk is passed over."""
    try:
        fd = os.open(root, _DIRECTORY)
    except OSError:
        return
    levels: list[list[str]] = []  # per directory open on the way down: its subdirectories still to visit
    try:
        while True:
            subdirectories = []
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        subdirectories.append(entry.name)
                    elif entry.is_file(follow_symlinks=False):
                        try:
                            size = entry.stat(follow_symlinks=False).st_size
                        except (FileNotFoundError, NotADirectoryError):
                            continue
                        yield size
            levels.append(subdirectories)
            inner = -1
            while inner < 0:
                while not levels[-1]:  # this level is done: up to the nearest with a directory left
                    levels.pop()
                    if not levels:
                        return
                    up = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
                    os.close(fd)
                    fd = up
                try:
                    inner = os.open(levels[-1].pop(), _DIRECTORY, dir_fd=fd)
                except (FileNotFoundError, NotADirectoryError):
                    continue  # gone, or no longer a directory
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
