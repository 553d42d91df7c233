"""The `s8f-duck` command line: parses arguments, calls one function, maps errors to exits.

Exit status (docs/format.md, "Exit status and interfaces"): 0 success; 1 a verdict against
the input (quality floor missed, verification or leak check failed); 2 unusable input,
environment or usage, named on stderr; 3 a bug in s8f-duck (failures.py); 128 + the
signal's number when stopped by SIGINT, SIGTERM or SIGHUP (interrupts.py).

Every command takes -q (nothing on stdout but what it exists to print; errors still on
stderr) and -v (a line per step on stderr); without either, stderr shows the step under way
only when it is a terminal (progress.py). The help is Click's plain text: paragraphs are
rewrapped to the terminal, a block after a line holding only \\b is kept as written.
"""

from __future__ import annotations

import copy
import os
import sys
from typing import NoReturn

import typer

from s8f_duck.cli import adjudication, board, corpus, grading, runs, service
from s8f_duck.cli.app import app, fail

# The commands, in the order `s8f-duck --help` lists them.
app.command()(corpus.freeze)
app.command()(grading.grade)
app.command()(corpus.verify)
app.command()(corpus.baseline)
app.command()(corpus.explore)
app.command()(corpus.sql)
app.command(context_settings={"allow_interspersed_args": False})(runs.run)
app.command("runs")(runs.list_runs)
app.command()(service.serve)
app.command()(service.team)
app.command()(service.submit)
app.command()(board.leaderboard)
app.add_typer(adjudication.adjudicate, name="adjudicate")


def _app_for(args: list[str]) -> typer.Typer:
    """The application with only the command that runs, when the first argument names
    one: Typer builds every registered command's options on each call (about 20 ms, a
    tenth of a small grade), and the others are not used. Anything else (the top-level
    help, --version, a mistyped command) gets the whole application."""
    chosen = [c for c in app.registered_commands if args and _command_name(c) == args[0]]
    group = [g for g in app.registered_groups if args and g.name == args[0]]  # (adjudicate ...)
    if not chosen and not group:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = chosen, group
    return one


def _command_name(command: typer.models.CommandInfo) -> str:
    return command.name or typer.main.get_command_name(command.callback.__name__)  # type: ignore[union-attr]


# Commands whose every output is written, closed and committed when they return, and that
# hold no database file open: they end without Python's interpreter teardown, which
# (mostly unloading DuckDB) costs 30-50 ms, a seventh of a small grade.
QUICK_EXIT_COMMANDS = frozenset({"grade", "verify", "freeze", "baseline"})


def _exit_now(code: object) -> NoReturn:
    """Exit with code (as sys.exit takes it) after the exit handlers (temporary files,
    spill directories) and flushing stdout and stderr, skipping the teardown."""
    import atexit

    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()  # (CPython's: what its exit runs first; each handler runs once)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # (a reader that left; a stream already closed)
            pass
    os._exit(code or 0)


COMMON_FLAGS = frozenset({"-q", "--quiet", "-v", "--verbose"})


def _flags_after_command(args: list[str]) -> list[str]:
    """-q and -v belong to every command: given before it (`s8f-duck -q grade ...`), they
    are moved after its name (after a group's command: `adjudicate -q packet`)."""
    leading = [a for a in args[: next((i for i, a in enumerate(args) if a not in COMMON_FLAGS), len(args))]]
    rest = args[len(leading) :]
    if not leading or not rest:
        return args
    names = 2 if rest[0] == "adjudicate" and len(rest) > 1 else 1
    return [*rest[:names], *leading, *rest[names:]]


def _usage_hint(where: str, message: str) -> str:
    """What a usage error most often means, where a new user is known to make it."""
    if where == "s8f-duck sql" and "unexpected extra argument" in message:
        return ": the corpus goes with --public FILE (or a database with --db FILE), the query alone as the argument"
    return ""


def _run(args: list[str]) -> int:
    """Run the command line; a usage error (an unknown option, a missing argument) is one
    line on stderr, `s8f-duck COMMAND: error: ...`, and exit status 2, as every error is."""
    from typer._click import exceptions as click  # (Typer's own copy of Click raises these)

    args = _flags_after_command(args)

    try:
        code = _app_for(args)(args=args, prog_name="s8f-duck", standalone_mode=False)
    except click.NoArgsIsHelpError as exc:  # a group named alone: its help, as Click shows it
        exc.show()
        return exc.exit_code
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "s8f-duck"
        message = " ".join(exc.format_message().split())
        print(f"{where}: error: {message}{_usage_hint(where, message)} (see: {where} -h)", file=sys.stderr)
        return 2
    except click.ClickException as exc:
        print(f"s8f-duck: error: {' '.join(exc.format_message().split())}", file=sys.stderr)
        return exc.exit_code
    except typer.Abort:
        print("s8f-duck: stopped", file=sys.stderr)
        return 1
    return code if isinstance(code, int) else 0


def main() -> None:
    from s8f_duck.safety import commit, interrupts, scratch

    interrupts.install()  # first: before any other thread starts
    commit.private_umask()
    sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # a lone surrogate in a cell
    try:
        try:
            scratch.start_run()
            sys.exit(_run(sys.argv[1:]))
        except Exception as exc:  # outside a command's guarded: its arguments, its printing
            try:
                fail(" ".join(sys.argv[1:2]), exc)
            except typer.Exit as end:
                sys.exit(end.exit_code)
    except SystemExit as end:
        if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT_COMMANDS:
            _exit_now(end.code)
        raise


if __name__ == "__main__":
    main()
