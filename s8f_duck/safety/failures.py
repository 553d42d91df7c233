"""What a failed command prints, and its exit status: one line, never a traceback.

- 2: the input or the environment cannot be used: the project's UnusableInput (naming
  the file and the record or field), an operating system error (a full disk, a read-only
  or unwritable destination, a missing permission), DuckDB failing to read or write a
  file, memory running out within the limit (S8F_DUCK_MEMORY_LIMIT, named with what to
  set), input nested too deeply for the decoder or not UTF-8 at all;
- 1: a verdict against the input (Verdict);
- 3: anything else, a bug in s8f-duck: a short report, and the traceback only when
  S8F_DUCK_DEBUG=1.
"""

from __future__ import annotations

import errno
import os
import re
import traceback

from s8f_duck.safety.errors import UnusableInput, Verdict
from s8f_duck.safety.memory import MEMORY_LIMIT_ENV, memory_limit

DEBUG_ENV = "S8F_DUCK_DEBUG"

_HINTS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted (an immutable or protected file?)",
    errno.EFBIG: "the file is larger than allowed (ulimit -f?)",
}


def describe(exc: BaseException) -> tuple[int, str]:
    """The exit status and the one line (after "s8f-duck COMMAND: ") for an exception."""
    if isinstance(exc, UnusableInput):
        return 2, f"error: {_one_line(str(exc), keep_lines=True)}"
    if isinstance(exc, Verdict):
        return 1, str(exc)
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    if isinstance(exc, MemoryError) or (module.startswith(("duckdb", "_duckdb")) and name == "OutOfMemoryException"):
        return 2, (
            f"error: out of memory within the limit {MEMORY_LIMIT_ENV}={memory_limit()}: the input is too large "
            f"for it; raise it (e.g. {MEMORY_LIMIT_ENV}=8GB) on a machine with that much memory"
        )
    if isinstance(exc, OSError):
        where = _as_output(str(exc.filename)) if exc.filename is not None else ""
        reason = exc.strerror or str(exc)
        hint = _HINTS.get(exc.errno or 0)
        text = f"{where}: {reason}" if where else reason
        return 2, f"error: {text}" + (f" ({hint})" if hint and hint.lower() != reason.lower() else "")
    if module.startswith(("duckdb", "_duckdb")):
        message = _as_output(_one_line(str(exc)))
        for code, hint in _HINTS.items():  # DuckDB failing to read or write a file, whatever the exception's type
            if os.strerror(code).lower() in message.lower():
                return 2, f"error: {message} ({hint})"
        if name in ("IOException", "PermissionException"):
            return 2, f"error: {message}"
    if isinstance(exc, RecursionError):
        return 2, "error: the input is nested too deeply to be read"
    if isinstance(exc, UnicodeDecodeError):  # DuckDB's message quoting the bytes it refused, not decodable itself
        return 2, f"error: an input is not UTF-8 text (UTF-16, or another encoding?): {exc.reason} at byte {exc.start}"
    return 3, _bug_report(exc)


def _as_output(text: str) -> str:
    """A new file's path (in a work directory beside its output, commit.py) as the output's."""
    return re.sub(r"\.s8f-duck-work-\d+-[^/]*/new/", "", text)


def _one_line(text: str, keep_lines: bool = False) -> str:
    """DuckDB's messages run over several lines (hints, the query): the first is enough.
    The project's own messages may list several problems, one per line: kept."""
    text = text.strip()
    return text if keep_lines else (text.splitlines() or [""])[0]


def _bug_report(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if f"{os.sep}s8f_duck{os.sep}" in f.filename] or frames
    where = f" at {os.path.basename(own[-1].filename)}:{own[-1].lineno} in {own[-1].name}" if own else ""
    return (
        f"internal error: {type(exc).__name__}: {_one_line(str(exc))}{where}. This is a bug in s8f-duck, not a "
        "problem with your files (outputs are only replaced by a command that succeeds). Rerun with "
        f"{DEBUG_ENV}=1 for the traceback, and report it with the command line."
    )


def debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")
