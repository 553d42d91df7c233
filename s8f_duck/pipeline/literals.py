"""The literal text every match of a redaction pattern contains, for the scrub's first scan.

RE2 scans for a case-insensitive pattern (the scrub's `(?i)`) about five times slower than
for a literal spelled with explicit ASCII case classes (`[sS][aA]...`), so the scrub first
keeps the texts that contain, in some case, a literal each rule requires, and only those
go through the rules themselves (sql/freeze/scrub_passes.sql). The literal must be in
every match, so anything this reading does not fully understand gives no literal, and
that rule is scanned for as it is. Under `(?i)` an ASCII letter also matches its other
case, and `s` and `k` one non-ASCII letter each (U+017F ſ, U+212A the Kelvin sign): the
SQL keeps every text holding one of those too.
"""

from __future__ import annotations

MIN_LENGTH = 3  # a shorter literal keeps too many texts to be worth a scan of its own
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_,:;/@#%=!~<>'\"&`")
_ZERO_WIDTH = frozenset("bBAz")  # \b \B \A \z match no character
_ONE_CHARACTER = frozenset("dDwWsS")  # \d \D \w \W \s \S match one character, not a literal one


class _Unknown(Exception):
    """Something this reading does not handle: the rule gets no literal."""


def required_literal(pattern: str) -> str | None:
    """The longest run of literal characters that every match of the RE2 pattern contains
    (at least MIN_LENGTH long), or None."""
    try:
        runs = _literal_runs(pattern)
    except _Unknown:
        return None
    best = max(runs, key=len, default="")
    return best if len(best) >= MIN_LENGTH else None


def _literal_runs(pattern: str) -> list[str]:
    """The runs of consecutive literal characters of the pattern's top-level sequence that
    every match holds (an optional or unknown item between two ends a run)."""
    runs, run, i = [], "", 0
    while i < len(pattern):
        literal, i = _item(pattern, i)
        low, repeated, i = _quantifier(pattern, i)
        if literal is not None and low >= 1:
            run += literal
            if not repeated:
                continue
        runs.append(run)  # an optional, repeated or non-literal item ends the run
        run = ""
    return [*runs, run]


def _item(pattern: str, i: int) -> tuple[str | None, int]:
    """The item at i: its literal character (None when it is not one) and where it ends."""
    c = pattern[i]
    if c == "\\":
        if i + 1 == len(pattern):
            raise _Unknown
        escaped = pattern[i + 1]
        if escaped in _ZERO_WIDTH or escaped in _ONE_CHARACTER:
            return None, i + 2
        if escaped.isascii() and not escaped.isalnum() and escaped.isprintable():
            return escaped, i + 2  # an escaped punctuation character stands for itself
        raise _Unknown  # \p, \Q, \x, \C, octal, ...
    if c == "[":
        return None, _class_end(pattern, i) + 1
    if c == "(":
        return None, _group_end(pattern, i) + 1
    if c in ".^$":
        return None, i + 1
    if c in _PLAIN:
        return c, i + 1
    raise _Unknown  # | at the top level, a stray quantifier or ), a non-ASCII character


def _class_end(pattern: str, i: int) -> int:
    """The index of the ']' closing the class opened at i."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1  # a leading ] is literal
    while j < len(pattern) and pattern[j] != "]":
        if pattern[j] == "[":
            raise _Unknown  # [:alpha:] and the like
        j += 2 if pattern[j] == "\\" else 1
    if j >= len(pattern):
        raise _Unknown
    return j


def _group_end(pattern: str, i: int) -> int:
    """The index of the ')' closing the group opened at i."""
    depth, j = 0, i
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(pattern, j)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise _Unknown


def _quantifier(pattern: str, i: int) -> tuple[int, bool, int]:
    """The quantifier at i, if any: the fewest repetitions it allows, whether it allows
    more than one, and where it ends (a lazy '?' after it included)."""
    if i == len(pattern) or pattern[i] not in "*+?{":
        return 1, False, i
    c = pattern[i]
    if c == "{":
        end = pattern.find("}", i)
        low, _, high = pattern[i + 1 : end].partition(",") if end > 0 else ("", "", "")
        if not low.isdigit() or not (high == "" or high.isdigit()):
            raise _Unknown  # in RE2 a '{' that is not a repetition is literal: not handled here
        many = "," in pattern[i + 1 : end] or int(low) > 1
        low_count, i = int(low), end + 1
    else:
        low_count, many, i = (0 if c in "*?" else 1), c in "*+", i + 1
    if i < len(pattern) and pattern[i] == "?":
        i += 1
    return low_count, many, i
