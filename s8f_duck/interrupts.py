"""SIGINT, SIGTERM and SIGHUP end a command cleanly: its work directories are removed, one
line on stderr, no traceback, and the exit status of a shell's killed command, 128 + the
signal's number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).

Python runs a signal handler only between bytecodes of the main thread, which can be
inside one DuckDB query for a minute. So the signals are blocked in every thread (the
mask is inherited by each thread started after `install`, DuckDB's own included) and
taken by a thread of their own with sigwait. That thread lets a commit in progress end
first (scratch.CRITICAL: outputs are never left half renamed), removes the run's work
directories and ends the process at once (os._exit: DuckDB's threads are not waited for).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import progress, scratch

SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def install() -> None:
    """Block the signals in this thread and every later one, and handle them on a thread
    of their own. Call before any other thread is started."""
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    threading.Thread(target=_wait, name="signals", daemon=True).start()


def restore() -> None:
    """Unblock the signals (before exec'ing another program, which inherits the mask)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)


_ctrl_c_to_main = False
_running: Any = None  # the connection of the prompt's query under way (it has SIGINT blocked then)


def take_ctrl_c() -> None:
    """For an interactive prompt: Ctrl-C cancels the line being typed or the query running,
    instead of ending the command. While the prompt reads a line, SIGINT is unblocked in
    the main thread (the kernel gives it to the main thread first), and Python's handler
    raises KeyboardInterrupt in input(); while a query runs (cancellable), it is blocked
    there again, and this module's thread interrupts the query's connection."""
    global _ctrl_c_to_main
    _ctrl_c_to_main = True
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def cancellable(con: Any) -> Iterator[None]:
    """A prompt's query during which Ctrl-C interrupts the connection (DuckDB then raises
    its InterruptException), whatever thread DuckDB runs it on."""
    global _running
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    _running = con
    try:
        yield
    finally:
        _running = None
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _wait() -> None:
    while (number := signal.sigwait(SIGNALS)) == signal.SIGINT and _ctrl_c_to_main:
        if _running is not None:
            _running.interrupt()
        else:  # between two statements: the prompt takes it when it reads the next line
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
    with scratch.CRITICAL:
        scratch.remove_owned()
        command = " ".join(["s8f-duck", *sys.argv[1:2]])
        name = signal.Signals(number).name
        line = f"{progress.clearing()}{command}: stopped by {name}; its temporary files are removed\n"
        os.write(2, line.encode(errors="backslashreplace"))
        os._exit(128 + number)
