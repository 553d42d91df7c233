"""A command's steps on stderr: off unless asked for (-v) or stderr is a terminal.

On a terminal (without -v) one line shows the step under way, rewritten at each step and
erased at the end, so only the command's result stays on the screen. With -v each step
gets a line of its own, ended with its duration: a log of where the time went. With -q,
or when stderr is not a terminal, nothing.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Literal

Mode = Literal["off", "line", "lines"]

ERASE = "\r\x1b[K"  # carriage return, then clear to the end of the line

_open: Progress | None = None  # the progress whose line is on the screen unfinished


class Progress:
    """Reports each step as it starts (step) and closes the display at the end (done)."""

    def __init__(self, command: str, mode: Mode = "off") -> None:
        self.command = command
        self.mode = mode
        self._step_started = time.perf_counter()
        self._current: str | None = None

    @classmethod
    def for_options(cls, command: str, *, quiet: bool = False, verbose: bool = False) -> Progress:
        """The progress a command's -v / -q ask for: -v a line per step (-q then silences
        only the summary), -q none, else the updating line when stderr is a terminal."""
        if verbose:
            return cls(command, "lines")
        if quiet:
            return cls(command, "off")
        return cls(command, "line" if sys.stderr.isatty() else "off")

    def step(self, name: str) -> None:
        """A new step begins (the previous one, if any, ends)."""
        global _open
        self._finish_current()
        self._current, self._step_started = name, time.perf_counter()
        if self.mode == "off":
            return
        text = f"{self.command}: {name} ..."
        if self.mode == "line":  # a line that wrapped could not be erased
            text = ERASE + text[: max(_width() - 1, 10)]
        _write(text)
        _open = self

    def done(self) -> None:
        """The last step ends; the updating line is erased. Calling it again does nothing."""
        self._finish_current()
        self._current = None

    def _finish_current(self) -> None:
        global _open
        if self._current is None or self.mode == "off":
            return
        if self.mode == "lines":
            _write(f" {time.perf_counter() - self._step_started:.2f}s\n")
        else:
            _write(ERASE)
        _open = None


def clearing() -> str:
    """What leaves a clean line for a message (an error) while a step is shown: the
    updating line erased, or a step's unfinished line ended; else nothing."""
    if _open is None:
        return ""
    return ERASE if _open.mode == "line" else "\n"


def end_line() -> None:
    """Leave a clean line for a message; the step shown is not finished later."""
    global _open
    text = clearing()
    if _open is not None:
        _open._current = None
        _open = None
    if text:
        _write(text)


def _width() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or 80  # 0: a terminal of unknown size
    except OSError:
        return 80


def _write(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
