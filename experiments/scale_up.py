#!/usr/bin/env python3
"""Scale a raw ``gh issue list --json`` corpus up to N renumbered copies.

Usage::

    python3 experiments/scale_up.py RAW.json N OUT.json

Copy ``c`` (0-based) renumbers every issue to ``number + 10000*c`` (and the
``/issues/<number>`` suffix of its ``url``), rewrites every in-corpus ``#<n>``
reference in title and body (docs/format.md §3 reference rule) to ``#<n + 10000*c>``,
appends ``" [copy c]"`` to the title and ``"\\n\\n[copy c]"`` to the body
(c >= 1 only), and shifts ``createdAt`` / ``updatedAt`` / ``closedAt`` by
``c`` microseconds, keeping each timestamp's own offset. Copy 0 is the input
unchanged, so ``N = 1`` reproduces the input records.

The output is streamed (one record per line) to ``OUT.json.tmp`` and renamed
to ``OUT.json`` only on success. Stdlib only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from typing import Any, Iterator, Union

STRIDE = 10000
"""Issue-number offset between consecutive copies."""

MAX_REF = 9_999_999
"""Largest value a docs/format.md §3 reference can carry (``[0-9]{1,7}``)."""

TIMESTAMP_KEYS = ("createdAt", "updatedAt", "closedAt")

# docs/format.md §3: (?i)(?:^|[^[:alnum:]_])#([0-9]{1,7})\b with ASCII [[:alnum:]] / \b,
# ^ = start of the whole text, leftmost-first, non-overlapping. The prefix
# character is a lookbehind here; this is equivalent because a match always
# ends on a digit, so the prefix of the next match is never inside it.
REF_RE = re.compile(r"(?:^|(?<=[^0-9A-Za-z_]))#([0-9]{1,7})(?![0-9A-Za-z_])", re.ASCII)

# RFC 3339 date-time; the seconds part and fraction are the only pieces rewritten.
TS_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})([Tt])(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})\Z",
    re.ASCII,
)

SURROGATE_RE = re.compile("[\ud800-\udfff]")

# A text template: literal pieces and in-corpus reference values (ints).
Template = list[Union[str, int]]


class ScaleError(Exception):
    """Invalid input or arguments; the message names the offending record."""


def find_references(text: str) -> list[int]:
    """Return the docs/format.md §3 reference values in ``text`` in order of occurrence."""
    return [int(m.group(1)) for m in REF_RE.finditer(text)]


def make_template(text: str, numbers: set[int]) -> Template:
    """Split ``text`` into literal pieces and ints for in-corpus reference digits."""
    parts: Template = []
    pos = 0
    for m in REF_RE.finditer(text):
        value = int(m.group(1))
        if value not in numbers:
            continue
        parts.append(text[pos : m.start(1)])
        parts.append(value)
        pos = m.end(1)
    parts.append(text[pos:])
    return parts


def render_template(parts: Template, offset: int) -> str:
    """Join a template, writing each reference as ``value + offset`` in decimal."""
    return "".join(p if isinstance(p, str) else str(p + offset) for p in parts)


class Timestamp:
    """A parsed RFC 3339 timestamp that can be re-emitted shifted by microseconds."""

    __slots__ = ("wall", "frac", "digits", "sep", "zone")

    def __init__(self, text: str) -> None:
        """Parse ``text``; raise ``ValueError`` when it is not RFC 3339."""
        m = TS_RE.match(text)
        if m is None:
            raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
        year, month, day, sep, hour, minute, second, frac, zone = m.groups()
        # Wall-clock time in the timestamp's own (fixed) offset; adding a
        # duration there equals adding it to the instant.
        self.wall = dt.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
        if zone not in ("Z", "z"):
            oh, om = int(zone[1:3]), int(zone[4:6])
            if oh > 23 or om > 59:
                raise ValueError(f"bad offset in timestamp: {text!r}")
        frac = frac or ""
        self.digits = max(len(frac), 6)
        self.frac = int(frac.ljust(self.digits, "0")) if frac else 0
        self.sep = sep
        self.zone = zone

    def shifted(self, micros: int) -> str:
        """Return the timestamp plus ``micros`` µs, fraction trimmed of trailing zeros."""
        unit = 10**self.digits
        total = self.frac + micros * 10 ** (self.digits - 6)
        carry, frac = divmod(total, unit)
        wall = self.wall + dt.timedelta(seconds=carry)
        out = (
            f"{wall.year:04d}-{wall.month:02d}-{wall.day:02d}{self.sep}"
            f"{wall.hour:02d}:{wall.minute:02d}:{wall.second:02d}"
        )
        if frac:
            out += "." + str(frac).rjust(self.digits, "0").rstrip("0")
        return out + self.zone


class Prepared:
    """One input record with everything a copy needs precomputed."""

    __slots__ = ("rec", "number", "title", "body", "url_prefix", "stamps")

    def __init__(self, rec: dict[str, Any], numbers: set[int]) -> None:
        """Precompute templates and parsed timestamps for ``rec``."""
        self.rec = rec
        self.number: int = rec["number"]
        title, body = rec.get("title"), rec.get("body")
        self.title = make_template(title, numbers) if isinstance(title, str) else None
        self.body = make_template(body, numbers) if isinstance(body, str) else None
        url = rec.get("url")
        suffix = f"/issues/{self.number}"
        self.url_prefix = url[: -len(suffix)] + "/issues/" if isinstance(url, str) and url.endswith(suffix) else None
        self.stamps: dict[str, Timestamp] = {}
        for key in TIMESTAMP_KEYS:
            value = rec.get(key)
            if value is None and key == "closedAt":
                continue
            if not isinstance(value, str):
                raise ValueError(f"{key} is not a string: {value!r}")
            self.stamps[key] = Timestamp(value)

    def copy(self, c: int) -> dict[str, Any]:
        """Return copy ``c`` of the record (the input record itself for c = 0)."""
        if c == 0:
            return self.rec
        offset = STRIDE * c
        out = dict(self.rec)  # same key order; assignments below keep positions
        out["number"] = self.number + offset
        if self.url_prefix is not None:
            out["url"] = f"{self.url_prefix}{self.number + offset}"
        if self.title is not None:
            out["title"] = render_template(self.title, offset) + f" [copy {c}]"
        if self.body is not None:
            out["body"] = render_template(self.body, offset) + f"\n\n[copy {c}]"
        for key, stamp in self.stamps.items():
            out[key] = stamp.shifted(c)
        return out


def load_raw(path: str) -> list[dict[str, Any]]:
    """Load the raw corpus; invalid UTF-8 bytes survive as lone surrogates."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", errors="surrogateescape")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScaleError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, list):
        raise ScaleError(f"{path}: top level is not an array")
    return data


def prepare(data: list[Any], n: int) -> list[Prepared]:
    """Validate the records and precompute them; raise ``ScaleError`` on bad input."""
    numbers: set[int] = set()
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise ScaleError(f"record {i}: not an object")
        num = rec.get("number")
        if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
            raise ScaleError(f"record {i}: number must be a positive integer, got {num!r}")
        if num in numbers:
            raise ScaleError(f"record {i} (#{num}): duplicate number")
        numbers.add(num)
    if n > 1 and numbers and max(numbers) >= STRIDE:
        raise ScaleError(f"issue #{max(numbers)} >= {STRIDE}: copies would collide")
    if numbers and max(numbers) + STRIDE * (n - 1) > MAX_REF:
        raise ScaleError(f"N={n}: renumbered references would exceed 7 digits")
    out: list[Prepared] = []
    for i, rec in enumerate(data):
        try:
            out.append(Prepared(rec, numbers))
        except ValueError as exc:
            raise ScaleError(f"record {i} (#{rec['number']}): {exc}") from None
    return out


def encode(rec: dict[str, Any]) -> str:
    """Encode one record; lone surrogates become ``\\uXXXX`` escapes (valid UTF-8 out)."""
    line = json.dumps(rec, ensure_ascii=False)
    if SURROGATE_RE.search(line):
        line = SURROGATE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)
    return line


def iter_lines(prepared: list[Prepared], n: int, progress: bool = True) -> Iterator[str]:
    """Yield the encoded records of copies 0..n-1, one copy at a time."""
    start = time.monotonic()
    for c in range(n):
        for p in prepared:
            yield encode(p.copy(c))
        if progress and ((c + 1) % 10 == 0 or c + 1 == n):
            print(f"scale_up: {c + 1}/{n} copies ({time.monotonic() - start:.1f}s)", file=sys.stderr, flush=True)


def scale_up(raw_path: str, n: int, out_path: str, progress: bool = True) -> int:
    """Write ``n`` copies of ``raw_path`` to ``out_path``; return the record count."""
    if n < 1:
        raise ScaleError(f"N must be >= 1, got {n}")
    prepared = prepare(load_raw(raw_path), n)
    tmp = out_path + ".tmp"
    count = 0
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fh:
            fh.write("[\n")
            for line in iter_lines(prepared, n, progress):
                if count:
                    fh.write(",\n")
                fh.write(line)
                count += 1
            fh.write("\n]\n")
        os.replace(tmp, out_path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return count


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    ap = argparse.ArgumentParser(description="Write N renumbered copies of a raw gh issue corpus.")
    ap.add_argument("raw", help="raw `gh issue list --json` dump (JSON array)")
    ap.add_argument("n", type=int, help="number of copies (>= 1)")
    ap.add_argument("out", help="output JSON path (written via OUT.tmp + rename)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)
    try:
        count = scale_up(args.raw, args.n, args.out, progress=not args.quiet)
    except (ScaleError, OSError) as exc:
        print(f"scale_up: error: {exc}", file=sys.stderr)
        return 1
    print(f"scale_up: wrote {count} records to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
