"""The two ways a command fails, mapped to exit codes by the CLI (docs/format.md §10)."""

from __future__ import annotations


class UnusableInput(Exception):
    """Exit 2: an input that cannot be used (undecodable, wrong types, missing file).

    The message names the file and the record or field."""


class Verdict(Exception):
    """Exit 1: the input was read but fails a check (verification, quality floor)."""
