"""The `s8f-duck` command line: parses arguments, calls one function, maps errors to exits.

Exit status (SPEC §10): 0 success; 1 a verdict against the input (quality floor missed,
verification or leak check failed); 2 unusable input or usage, named on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from .errors import UnusableInput, Verdict
from .progress import Progress

app = typer.Typer(
    help=(
        "Freeze a `gh issue list --json` dump into a leak-controlled benchmark (public corpus, "
        "answer bundle, report), verify it, grade submissions, run the exact SQL baseline, "
        "and explore the corpus with SQL.\n\n"
        "Exit status: 0 success, 1 a verdict against the input (verification failed, quality "
        "floor missed), 2 unusable input or usage."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")


@app.callback()
def _commands() -> None:
    """Keeps every command a subcommand (`s8f-duck freeze ...`), however many there are."""


def _run(command: str, action: Callable[[], T]) -> T:
    """Run an action; turn the project's errors into a message and an exit status."""
    try:
        return action()
    except UnusableInput as exc:
        print(f"s8f-duck {command}: error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    except Verdict as exc:
        print(f"s8f-duck {command}: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None




@app.command()
def freeze(
    raw: Annotated[Path, typer.Argument(help="Raw JSON array printed by `gh issue list --json ...`.")],
    public: Annotated[Path, typer.Option(help="Where to write the public corpus (what candidates see).")],
    answers: Annotated[Path, typer.Option(help="Where to write the answer bundle (grader only).")],
    report: Annotated[Path, typer.Option(help="Where to write the report (counts, leak checks, oracle grade).")],
    source: Annotated[str, typer.Option(help="Free text naming where the records came from.")],
    db: Annotated[
        Path | None, typer.Option(help="Also keep the DuckDB database with every table, for SQL exploration.")
    ] = None,
    redactions: Annotated[
        Path | None, typer.Option(help="JSON array of RE2 patterns to redact, in order (default: the committed map).")
    ] = None,
    min_records: Annotated[int, typer.Option(help="Refuse dumps with fewer records than this.")] = 50,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Freeze RAW into the public corpus, answer bundle and report (byte-exact S8f layout).

    Every derived table is computed by the SQL files under sql/ (see `s8f_duck/steps.py`
    for their order). Outputs appear only when every step and leak check succeeded; a
    failure leaves any existing file at the output paths untouched.
    """
    from . import freeze as freezing

    result = _run(
        "freeze",
        lambda: freezing.freeze(
            raw,
            public,
            answers,
            report,
            source,
            db_path=db,
            redactions_path=redactions or freezing.DEFAULT_REDACTIONS,
            min_records=min_records,
            progress=Progress("freeze", enabled=False if quiet else None),
        ),
    )
    if not quiet:
        print(freezing.summary(result))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
