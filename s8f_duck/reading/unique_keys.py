"""JSON documents of this project's own formats (labels files, packets, semantic bundles)
read with every key of an object given once: Go, and gojson, keep the last of a repeated
key, so `{"labels": [...], "labels": []}` would silently be read as no labels. Such a file
is refused, naming the key, as a repeated field of the S8f inputs is."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from s8f_duck.reading import gojson
from s8f_duck.reading.load import read_json_file
from s8f_duck.safety.errors import UnusableInput


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Repeated(key)
        found[key] = value
    return found


def repeated_key(data: bytes) -> str | None:
    """The first key found repeated within one object of a JSON text gojson has read."""
    text = data.decode("utf-8", errors="s8f_go_replace")
    with gojson._RAISED_LIMIT:  # (nesting gojson takes, up to Go's limit, is read here too)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 3 * gojson.MAX_DEPTH + 1000))
        try:
            json.loads(text, object_pairs_hook=_once)
        except _Repeated as repeat:
            return repeat.key
        finally:
            sys.setrecursionlimit(limit)
    return None


def read_json_once(path: Path) -> Any:
    """read_json_file(path), refused when a key is repeated within an object."""
    document = read_json_file(path)
    key = repeated_key(path.read_bytes())
    if key is not None:
        raise UnusableInput(f"{path}: the key {key!r} is given twice in one object: a repeated key is refused "
                            "(it would be read as the last one alone)")  # fmt: skip
    return document
