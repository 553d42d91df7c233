"""What every command shares: the Typer application, the options -q and -v, the choices of
--split and --format, and how a failure becomes one line and an exit status."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn, TypeVar

import typer
import typer.core


def _plain_metavar(self: typer.core.TyperArgument, ctx: object, *, usage: bool = False) -> str:
    """An argument's name in the usage line as the help writes it (RAW, COMMAND..., [PUBLIC]):
    Typer puts a required one in braces ({RAW}), which reads as a set of choices."""
    shown = _typer_metavar(self, ctx, usage=usage)  # type: ignore[arg-type]
    return shown[1:-1] if usage and shown.startswith("{") and shown.endswith("}") else shown


_typer_metavar = typer.core.TyperArgument.make_metavar
typer.core.TyperArgument.make_metavar = _plain_metavar  # type: ignore[method-assign]

app = typer.Typer(
    help=(
        "Freeze a GitHub issue dump into a leak-controlled benchmark (public corpus, answer bundle, "
        "report), verify it, grade submissions, run candidates in a sandbox, and explore the corpus "
        "with SQL.\n\n"
        "Run `s8f-duck COMMAND -h` for a command's options. Every command takes -q (print nothing "
        "on success but what the command exists to print) and -v (a line per step on stderr).\n\n"
        "\b\n"
        "Exit status:\n"
        "  0    success\n"
        "  1    a verdict against the input (verification failed, quality floor missed)\n"
        "  2    unusable input, environment or usage (one line on stderr names it)\n"
        "  3    a bug in s8f-duck\n"
        "  130, 143, 129  stopped by SIGINT, SIGTERM, SIGHUP (temporary files removed)\n\n"
        "\b\n"
        "Environment:\n"
        "  S8F_DUCK_MEMORY_LIMIT  DuckDB's memory limit, in any form DuckDB takes (3GB, 3GiB, 75%);\n"
        "                         default 3GB; beyond it, work spills to a private temporary directory\n"
        "  S8F_DUCK_DEBUG=1       print the traceback of an internal error"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # Click's plain help: rewrapped paragraphs, no boxes
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


T = TypeVar("T")


Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="Print nothing on success but what the command exists to print "
                                       "(errors still go to stderr)."),  # fmt: skip
]


Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Print a line per step on stderr, with its time.")]


STDOUT = Path("-")


class Split(str, Enum):
    """The split a grade compares (grade.SPLITS)."""

    test = "test"
    tune = "tune"
    train = "train"


class InputFormat(str, Enum):
    """input_forms.INPUT_FORMATS, without importing DuckDB for --help."""

    auto = "auto"
    gh = "gh"
    rest = "rest"


class GradeFormat(str, Enum):
    summary = "summary"
    table = "table"
    json = "json"
    jsonl = "jsonl"  # one line per submission: for scripts grading many


class TableFormat(str, Enum):
    """How `sql`, `runs` and `leaderboard` print rows."""

    table = "table"
    csv = "csv"
    json = "json"


INPUT_FORMAT_HELP = (
    "The dump's form: auto (told from its content), gh (the `gh issue list --json` array) or rest "
    "(GitHub's REST issue objects; pull requests are dropped)."
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"s8f-duck {version('s8f-duck')}")
        raise typer.Exit()


@app.callback()
def _commands(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Keeps every command a subcommand (`s8f-duck freeze ...`), however many there are."""


def guarded(command: str, action: Callable[[], T]) -> T:
    """Run an action; turn every failure into one line and an exit status (failures.py)."""
    try:
        return action()
    except typer.Exit:
        raise
    except Exception as exc:
        fail(command, exc)


def fail(command: str, exc: BaseException) -> NoReturn:
    from s8f_duck.safety import failures, progress
    from s8f_duck.safety.printable import printable_lines

    if isinstance(exc, BrokenPipeError):  # the reader of stdout left (`| head`): end quietly, as on SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor fail again flushing at exit
        raise typer.Exit(128 + signal.SIGPIPE) from None
    status, message = failures.describe(exc)
    progress.end_line()
    if failures.debugging():
        import traceback

        traceback.print_exception(exc)
    print(f"{' '.join(['s8f-duck', command]).strip()}: {printable_lines(message)}", file=sys.stderr)  # (input quoted)
    raise typer.Exit(status) from None


def say(quiet: bool, text: str, *, to_stderr: bool = False) -> None:
    """A command's summary: on stdout (stderr when stdout carries an output), unless -q."""
    if not quiet:
        print(text, file=sys.stderr if to_stderr else sys.stdout)


def copy_to_stdout(path: Path) -> None:
    sys.stdout.flush()
    with open(path, "rb") as source:
        shutil.copyfileobj(source, sys.stdout.buffer)
    sys.stdout.buffer.flush()
