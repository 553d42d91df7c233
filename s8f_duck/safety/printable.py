"""Untrusted text made safe to print: a submission's strings, a labels file's names, a run's
or a team's name, a candidate's output reach a terminal or a log line only through this.

A terminal obeys the control characters in what it prints (ESC sequences clear the screen,
move the cursor or set the window's title, CR overwrites the line, BEL rings), and Unicode's
format characters (a right-to-left override) reorder what is shown: every character that
is not printable is written as its escape (ESC as \\x1b, U+202E as \\u202e), so the text
shows as what it is. Printable text, any script's, is left as it is.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """One line of text with every character that is not printable (line breaks included)
    escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def printable_lines(text: str) -> str:
    """Text of several lines, each made printable (the line breaks between them kept)."""
    return "\n".join(printable(line) for line in text.split("\n"))
