"""A command's path arguments, checked before any work is done (exit 2, naming the paths).

- Every path is valid UTF-8: DuckDB takes file names as UTF-8 text.
- An output is a regular file or does not exist yet; the directories it goes into are
  created (make_parent). `-` (standard output) is refused where a command does not take
  it: those that do handle it before these checks. A symbolic link is refused rather
  than written through (replacing it would put a file where the link was; following it
  would overwrite a file elsewhere, `/dev/stdout` for one), and so is anything else that
  is not a regular file: a directory, a device, a pipe.
- No output is the same file as another path of the same command: not another spelling
  (`x.json`, `./x.json`, `d/../x.json`), not through a link to it or to a directory on the
  way, not a hard link. Two inputs may be one file (an answer bundle graded as its own
  submission).

arguments.check runs these checks, then finishes or undoes interrupted commits beside the
inputs (commit.recover_beside).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from s8f_duck.safety.errors import UnusableInput


def check(inputs: Mapping[str, Path | None], outputs: Mapping[str, Path | None] | None = None) -> None:
    """Refuse the arguments described above; `inputs` and `outputs` map each option's
    name (as the user typed it: "--public", "RAW") to its path, None when not given."""
    given = [(name, Path(path), False) for name, path in inputs.items() if path is not None]
    given += [(name, Path(path), True) for name, path in (outputs or {}).items() if path is not None]
    for name, path, _ in given:
        utf8(name, path)
    for name, path, is_output in given:
        if is_output:
            if str(path) == "-":
                raise UnusableInput(f"{name} -: this output is a file (standard output is not taken here); give its path")
            writable_kind(path, name)
    seen: list[tuple[str, Path, bool, tuple[str, tuple[int, int] | None]]] = []
    for name, path, is_output in given:
        identity = _identity(path)
        for other_name, other_path, other_is_output, other_identity in seen:
            if (is_output or other_is_output) and _same(identity, other_identity):
                clash = _collision(other_name, other_path, other_is_output, name, path, is_output)
                how = f"both are {identity[0]}" if identity[0] == other_identity[0] else "hard links of one file"
                raise UnusableInput(f"{clash} ({how})")
        seen.append((name, path, is_output, identity))


def utf8(name: str, path: Path) -> None:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise UnusableInput(
            f"{name} {os.fsencode(path)!r}: the path is not valid UTF-8 (DuckDB takes file names as UTF-8 text); "
            "rename the file or give a link to it"
        ) from None


def writable_kind(path: Path, name: str = "") -> None:
    """Refuse an output path that is a symbolic link or exists as anything but a regular file."""
    label = f"{name} {path}" if name else str(path)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UnusableInput(f"{label}: cannot use it as an output: {exc.strerror}") from None
    if stat.S_ISLNK(status.st_mode):
        raise UnusableInput(
            f"{label}: is a symbolic link; outputs are never written through a link (give the path it points to)"
        )
    if stat.S_ISDIR(status.st_mode):
        raise UnusableInput(f"{label}: is a directory, expected a file path")
    if not stat.S_ISREG(status.st_mode):
        raise UnusableInput(f"{label}: is not a regular file (a device, pipe or socket); outputs are regular files")


def make_parent(path: Path, name: str = "") -> None:
    """Create the directories an output path goes into, as `mkdir -p` does."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        label = f"{name} {path}" if name else str(path)
        raise UnusableInput(f"{label}: cannot create its directory {Path(path).parent}: {exc.strerror or exc}") from None


def _identity(path: Path) -> tuple[str, tuple[int, int] | None]:
    """The path with every link resolved, and the file's device and inode when it exists."""
    try:
        status = os.stat(path)
        inode: tuple[int, int] | None = (status.st_dev, status.st_ino)
    except OSError:
        inode = None
    return os.path.realpath(path), inode


def _same(a: tuple[str, tuple[int, int] | None], b: tuple[str, tuple[int, int] | None]) -> bool:
    return a[0] == b[0] or (a[1] is not None and a[1] == b[1])


def _collision(first: str, first_path: Path, first_out: bool, second: str, second_path: Path, second_out: bool) -> str:
    if first_out and second_out:
        return f"{first} {first_path} and {second} {second_path} are the same file; each output needs a path of its own"
    output, output_path, given, given_path = (
        (first, first_path, second, second_path) if first_out else (second, second_path, first, first_path)
    )
    return (
        f"{output} {output_path} is the same file as the input {given} {given_path}; an output never replaces an input"
    )


def run_root(runs_db: Path) -> Path:
    """The directory of run directories beside a runs database."""
    return runs_db.with_name(runs_db.stem + "-runs")


def no_runs_database(runs_db: Path) -> str:
    """Why there is no runs database at runs_db, in words: none yet while the first run is
    still going (its directory exists beside, the database is written when it ends)."""
    runs = run_root(runs_db)
    try:
        under_way = runs.is_dir() and any(runs.iterdir())
    except OSError:
        under_way = False
    if under_way:
        return (f"{runs_db}: no run is recorded yet: the database is written when a run ends, and a run has "
                f"begun ({runs}); ask again when it has ended")  # fmt: skip
    return f"{runs_db}: no such runs database (s8f-duck run --runs {runs_db} writes it)"
