"""Large JSON arrays cut into several files, so that DuckDB reads them on several cores
and element by element (instead of parsing a whole document as one value).

A cut is only a candidate: the parts hold the original's elements in order exactly when
each part is valid JSON, which DuckDB checks by reading them. The loader reads the
original file instead whenever it refuses a part.
"""

from __future__ import annotations

import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

HEAD_WINDOW = 1 << 20  # where a member array's opening line is looked for
TAIL_WINDOW = 16 << 20  # where its closing line is looked for (what follows it is small)


def array_member_span(path: Path, key: str) -> tuple[int, int] | None:
    """Where the top-level array member `key` of a JSON document lies when laid out as
    Go's MarshalIndent writes it (as freeze writes every artifact): from the '[' ending
    the line `  "key": [` to the ']' of the last line `  ]` (the document's only other
    members are small). Its first and past-last byte offsets, or None."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(HEAD_WINDOW)
        tail_start = max(size - TAIL_WINDOW, 0)
        f.seek(tail_start)
        tail = f.read()
    opening = f'\n  "{key}": ['.encode()
    start, close = head.find(opening), tail.rfind(b"\n  ]")
    if start < 0 or close < 0 or tail_start + close < start:
        return None
    return start + len(opening) - 1, tail_start + close + len(b"\n  ]")


def copy_range(source: Path, target: Path, start: int, end: int, prefix: bytes = b"", suffix: bytes = b"") -> None:
    """prefix, bytes [start, end) of source, then suffix, as target (copied in the kernel
    where it can)."""
    with open(source, "rb") as src, open(target, "wb", buffering=0) as dst:
        dst.write(prefix)
        offset = start
        try:
            while offset < end and (copied := os.copy_file_range(src.fileno(), dst.fileno(), end - offset, offset)):
                offset += copied
        except OSError:  # not supported here: copy through Python
            pass
        src.seek(offset)
        dst.seek(len(prefix) + offset - start)
        while offset < end and (block := src.read(min(end - offset, 1 << 24))):
            dst.write(block)
            offset += len(block)
        dst.write(suffix)


def element_cuts(f: BinaryIO | mmap.mmap, start: int, end: int, every: int, nearest: bool = False) -> list[int]:
    """Candidate cuts between the elements of the JSON array at bytes [start, end) of f,
    about `every` bytes apart (each the offset of a ',', see _separator_near)."""
    cuts: list[int] = []
    target = start + every
    while target < end - every // 4:
        cut = _separator_near(f, target, end, nearest=nearest)
        if cut is not None:
            cuts.append(cut)
            target = cut + every
        else:
            target += every
    return cuts


PART_MIN_BYTES = 8 * 2**20  # an array smaller than this is read as one part
SEPARATOR_WINDOW = 1 << 20


def _separator_near(
    f: BinaryIO, position: int, end: int, first_key: bytes | None = None, nearest: bool = False
) -> int | None:
    """The offset of a ',' at or after position (and before end) that stands between a
    '}' and a '{' (whitespace aside): a candidate for where one array element ends.
    Indented JSON puts the array's own elements on lines of the least indentation, so of
    the candidates followed by a new line the least indented is taken (objects inside an
    element, such as labels, are indented more); without new lines, the first. With
    first_key (the JSON-encoded key that every element begins with), only a '{' that
    begins with it counts (in compact JSON, objects inside an element begin otherwise).
    nearest: the first candidate, however indented (for a reader to whom a cut inside an
    element costs only time, and whose elements hold no objects: the typed check)."""
    f.seek(position)
    window = f.read(min(SEPARATOR_WINDOW, end - position))
    best: tuple[int, int] | None = None  # (indentation, offset)
    at = window.find(b"},")
    while at >= 0:
        gap = window[at + 2 : at + 2 + 256]
        rest = gap.lstrip(b" \t\r\n")
        if rest.startswith(b"{") and (first_key is None or rest[1:].lstrip(b" \t\r\n").startswith(first_key)):
            space = gap[: len(gap) - len(rest)]
            if nearest:
                return position + at + 1
            if b"\n" not in space:
                best = best or (1 << 30, at)
            else:
                indent = len(space) - space.rindex(b"\n") - 1
                best = min(best or (indent, at), (indent, at))
                if indent == 0:
                    break
        at = window.find(b"},", at + 1)
    return None if best is None else position + best[1] + 1


def array_parts(
    source: Path, start: int, end: int, scratch: Path, parts: int, first_key: bytes | None = None
) -> list[Path]:
    """The JSON array at bytes [start, end) of source as up to `parts` files, each itself
    an array of consecutive elements, so that DuckDB reads them on several cores.

    Cuts are made at a ',' between '}' and '{'. The parts are only a candidate split:
    they hold the array's elements in order exactly when every part is a valid JSON
    array (a cut inside a string or a nested value leaves a part unclosed), which the
    reader then checks by reading them; if it refuses any, the caller reads the source.
    first_key: as for _separator_near."""
    cuts: list[int] = []
    if end - start >= 2 * PART_MIN_BYTES:
        with open(source, "rb") as f:
            for k in range(1, parts):
                target = start + (end - start) * k // parts
                cut = _separator_near(f, max(target, cuts[-1] + 1 if cuts else start), end, first_key)
                if cut is not None:
                    cuts.append(cut)
    if not cuts and start == 0 and end == source.stat().st_size:
        return [source]
    bounds = [start - 1, *cuts, end]  # each part: after one cut up to the next
    files = [scratch / f"part-{i}.json" for i in range(len(bounds) - 1)]

    def copy(i: int) -> None:
        first, last = i == 0, i == len(files) - 1
        copy_range(source, files[i], start if first else bounds[i] + 1, bounds[i + 1] if not last else end,
                   prefix=b"" if first else b"[", suffix=b"" if last else b"]")  # fmt: skip

    with ThreadPoolExecutor(len(files)) as pool:  # the kernel copies them at the same time: half the time for two
        list(pool.map(copy, range(len(files))))
    return files
