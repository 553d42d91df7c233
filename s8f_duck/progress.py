"""Step-by-step progress on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time


class Progress:
    """Prints each step as it starts and its duration, so long steps are visible."""

    def __init__(self, command: str, enabled: bool | None = None) -> None:
        self.command = command
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._started = time.perf_counter()
        self._current: str | None = None
        self._step_started = self._started

    def step(self, name: str) -> None:
        self._finish_current()
        self._current, self._step_started = name, time.perf_counter()
        if self.enabled:
            print(f"{self.command}: {name} ...", end="", file=sys.stderr, flush=True)

    def _finish_current(self) -> None:
        if self._current is not None and self.enabled:
            print(f" {time.perf_counter() - self._step_started:.2f}s", file=sys.stderr, flush=True)
        self._current = None

    def done(self) -> None:
        self._finish_current()
        if self.enabled:
            print(f"{self.command}: done in {time.perf_counter() - self._started:.2f}s", file=sys.stderr)
