"""A finished artifact is replaced only by the same bytes, or with --force.

A command that writes a finished artifact (freeze's files, adjudicate's bundle, labels and
packet) compares what is at the output path with what it made: the same bytes (the same
inputs again) pass, anything else is refused with one line that names the file and what
made it, as the file itself (or its report) records it. No side file is needed."""

from __future__ import annotations

import filecmp
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.printable import printable

_HEAD_BYTES = 1 << 16
_KEYS = rb"schema|source|corpus_sha256|answers_sha256|packet_sha256|rubric_sha256|model|endpoint"
_FIELD = re.compile(rb'"(' + _KEYS + rb')":\s*("(?:[^"\\]|\\.)*")')


def exists(path: Path | None) -> bool:
    return path is not None and os.path.lexists(path)


def same_bytes(final: Path, new: Path) -> bool:
    """Whether the file at final holds exactly the new file's bytes."""
    try:
        return os.path.isfile(final) and filecmp.cmp(final, new, shallow=False)
    except OSError:
        return False


def head_fields(path: Path) -> dict[str, Any]:
    """The provenance fields in the first 64 KiB of a JSON artifact (schema, source and the
    digests it is bound to), without reading the whole file; {} for anything else."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD_BYTES)
    except OSError:
        return {}
    found: dict[str, Any] = {}
    for key, value in _FIELD.findall(head):
        try:
            found.setdefault(key.decode(), json.loads(value))
        except ValueError:
            continue
    return found


def refuse(final: Path, made_from: str, wanted: str) -> UnusableInput:
    """The one line that refuses to replace final."""
    made_from = printable(made_from)  # read from the file: its names may hold control characters
    return UnusableInput(f"{final}: made from {made_from}, not from {wanted}; nothing written (--force replaces it)")


def refuse_others(files: Iterable[tuple[Path | None, Path]], wanted: str, made_from: Callable[[Path], str]) -> None:
    """For each (output, its new file): an existing output of other bytes is refused,
    named with what made it (made_from reads that from the file or its report)."""
    for final, new in files:
        if final is not None and exists(final) and not same_bytes(final, new):
            raise refuse(final, made_from(final), wanted)
