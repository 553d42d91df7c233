"""A raw dump as it will be read: what input_forms.py told of it, and what the readers of
both forms (load.py for gh's array, rest_dumps.py for GitHub's REST objects) take."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class Dump:
    """A raw dump as it will be read."""

    path: Path  # the file given (messages name it)
    plain: Path  # its JSON bytes: the file itself, or the decompressed copy of a gzip file
    form: str  # "gh" or "rest"
    container: str  # "array", "pages" or "lines"
    certain: bool  # whether the form was given or told from the content (else gh, as dumps always were)
    issue_bytes: int | None  # about how large the issues are in gh's form (the work database's size)
    first_key: bytes | None = None  # the JSON-encoded key the first record begins with (where to cut arrays)
    looks_like: str | None = None  # the form its first records have, when --input-format named the other
