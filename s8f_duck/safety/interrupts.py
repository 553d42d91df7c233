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
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from s8f_duck.safety import progress, scratch

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
_lock = threading.Lock()
_running: Any = None  # the connection of the prompt's query under way
_ctrl_c = threading.Event()  # a Ctrl-C that the prompt has not taken yet
NUDGE = signal.SIGUSR1  # raises KeyboardInterrupt in the main thread (Python runs handlers there)


def take_ctrl_c() -> None:
    """For an interactive prompt (from the main thread): Ctrl-C cancels the line being
    typed or the query running, instead of ending the command. SIGINT stays blocked in
    every thread and reaches this module's thread, which interrupts the running query's
    connection, or else raises KeyboardInterrupt in the main thread with NUDGE, again every
    50 ms until the prompt says it took it (`ctrl_c_taken`)."""
    global _ctrl_c_to_main
    signal.signal(NUDGE, _raise_keyboard_interrupt)
    _ctrl_c_to_main = True
    threading.Thread(target=_deliver_ctrl_c, name="ctrl-c", daemon=True).start()


def ctrl_c_taken() -> None:
    """The prompt has dropped its line (or query) for the last Ctrl-C."""
    _ctrl_c.clear()


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _deliver_ctrl_c() -> None:
    # Again until the prompt takes it: DuckDB forgets an interrupt that comes before its
    # query has begun, and readline one that comes outside its wait for a key.
    while _ctrl_c.wait():
        with _lock:
            if _running is not None:  # the query ends with DuckDB's InterruptException
                _running.interrupt()
            else:
                signal.pthread_kill(threading.main_thread().ident or 0, NUDGE)
        time.sleep(0.05)


@contextmanager
def cancellable(con: Any) -> Iterator[None]:
    """A prompt's query during which Ctrl-C interrupts the connection (DuckDB then raises
    its InterruptException), whatever thread DuckDB runs it on."""
    global _running
    with _lock:
        _running = con
    try:
        yield
    finally:
        with _lock:
            _running = None


_on_stop: list[Callable[[], str]] = []  # what a command does when stopped, saying what it left


@contextmanager
def on_stop(action: Callable[[], str]) -> Iterator[None]:
    """While the block runs, a signal that ends the command first calls action (on the
    signals' thread), whose words (if any) end the stop line: what was kept, how to go on."""
    _on_stop.append(action)
    try:
        yield
    finally:
        _on_stop.remove(action)


def _stop_notes() -> str:
    notes = []
    for action in list(_on_stop):
        try:
            notes.append(action())
        except Exception:  # noqa: BLE001  (stopping goes on whatever one action does)
            pass
    return "".join(f"; {note}" for note in notes if note)


def _wait() -> None:
    while (number := signal.sigwait(SIGNALS)) == signal.SIGINT and _ctrl_c_to_main:
        _ctrl_c.set()
    with scratch.CRITICAL:
        scratch.remove_owned()
        notes = _stop_notes()
        command = " ".join(["s8f-duck", *sys.argv[1:2]])
        name = signal.Signals(number).name
        line = f"{progress.clearing()}{command}: stopped by {name}; its temporary files are removed{notes}\n"
        os.write(2, line.encode(errors="backslashreplace"))
        os._exit(128 + number)
