"""The `s8f-duck` command line: parses arguments, calls one function, maps errors to exits.

Exit status (SPEC §10): 0 success; 1 a verdict against the input (quality floor missed,
verification or leak check failed); 2 unusable input, environment or usage, named on
stderr; 3 a bug in s8f-duck (failures.py); 128 + the signal's number when stopped by
SIGINT, SIGTERM or SIGHUP (interrupts.py).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn, TypeVar

import typer

from .progress import Progress

app = typer.Typer(
    help=(
        "Freeze a `gh issue list --json` dump into a leak-controlled benchmark (public corpus, "
        "answer bundle, report), verify it, grade submissions, run the exact SQL baseline, "
        "and explore the corpus with SQL.\n\n"
        "Exit status: 0 success, 1 a verdict against the input (verification failed, quality "
        "floor missed), 2 unusable input, environment or usage, 3 a bug in s8f-duck; 130, 143, "
        "129 when stopped by SIGINT, SIGTERM, SIGHUP (temporary files removed).\n\n"
        "Environment: S8F_DUCK_MEMORY_LIMIT caps DuckDB's memory (default 3GB); beyond it, work "
        "spills to a private temporary directory. S8F_DUCK_DEBUG=1 prints the traceback of an "
        "internal error."
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
    """Run an action; turn every failure into one line and an exit status (failures.py)."""
    try:
        return action()
    except typer.Exit:
        raise
    except Exception as exc:
        _fail(command, exc)


def _fail(command: str, exc: BaseException) -> NoReturn:
    from . import failures

    status, message = failures.describe(exc)
    if failures.debugging():
        traceback.print_exception(exc)
    print(f"{' '.join(['s8f-duck', command]).strip()}: {message}", file=sys.stderr)
    raise typer.Exit(status) from None



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
    parquet: Annotated[Path | None, typer.Option(help="Also write the public records as a Parquet file.")] = None,
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
            parquet_path=parquet,
            redactions_path=redactions or freezing.DEFAULT_REDACTIONS,
            min_records=min_records,
            progress=Progress("freeze", enabled=False if quiet else None),
        ),
    )
    if not quiet:
        print(freezing.summary(result))


@app.command()
def grade(
    answers: Annotated[Path, typer.Option(help="The answer bundle (grader-only file).")],
    submission: Annotated[Path, typer.Option(help="The candidate's submission (fak-microcontext-submission/1).")],
    output: Annotated[Path, typer.Option(help="Where to write the grade JSON (core fields, then the breakdown).")],
    format: Annotated[
        str, typer.Option("--format", help="What to print: summary (one line), table (per-slice breakdown), json.")
    ] = "summary",
) -> None:
    """Grade a submission fact by fact against the held-out test answers (SPEC §8).

    Exit 0 when quality passes (every test record exact, no aggregate or citation
    error); 1 when it does not, or when the submission is bound to another corpus; 2
    when an input cannot be used (the message names the field and the record).
    """
    from . import grade as grading
    from .gojson import dumps

    if format not in ("summary", "table", "json"):
        print(f"s8f-duck grade: error: --format must be summary, table or json, not {format!r}", file=sys.stderr)
        raise typer.Exit(2)

    report = _run("grade", lambda: grading.grade_to(answers, submission, output))
    print({"summary": grading.summary, "table": grading.table, "json": lambda r: dumps(r).rstrip()}[format](report))
    if not report["corpus_bound"]:
        print(
            f"s8f-duck grade: the submission is bound to corpus {report['submission_corpus_sha256']!r}, "
            f"but the answers are for corpus {report['corpus_sha256']}: not graded (all-zero core report)",
            file=sys.stderr,
        )
    if not report["quality_pass"]:
        raise typer.Exit(1)


@app.command()
def verify(
    public: Annotated[Path, typer.Option(help="The public corpus.")],
    answers: Annotated[Path, typer.Option(help="The answer bundle.")],
    report: Annotated[Path, typer.Option(help="The report.")],
    raw: Annotated[
        Path | None, typer.Option(help="Also re-freeze this raw dump and require byte-identical artifacts.")
    ] = None,
    redactions: Annotated[Path | None, typer.Option(help="Redaction map for --raw (default: the committed map).")] = None,
) -> None:
    """Verify a frozen triple: digest binding, counts and report verdicts (as the reference
    does), then re-derive everything from the public corpus with freeze's own SQL (splits,
    hashes, answers, aggregates, report counts, leak checks, oracle grade) and require it
    to equal the files. Exit 0 verified, 1 a difference (the first ones are named), 2
    an unusable file.
    """
    from . import paths
    from .freeze import DEFAULT_REDACTIONS
    from .verify import verdict
    from .verify import verify as verifying

    def run() -> list[str]:
        inputs = {"--public": public, "--answers": answers, "--report": report, "--raw": raw, "--redactions": redactions}
        paths.check(inputs)
        return verifying(
            public, answers, report, raw_path=raw, redactions_path=redactions or DEFAULT_REDACTIONS,
            progress=Progress("verify"),
        )  # fmt: skip

    problems = _run("verify", run)
    _run("verify", lambda: verdict(problems))
    print("verified: digests bind, counts match, and every artifact re-derives from the public corpus")


@app.command()
def baseline(
    public: Annotated[Path, typer.Option(help="The public corpus: the only input the baseline receives.")],
    output: Annotated[Path, typer.Option(help="Where to write the submission (fak-microcontext-submission/1).")],
) -> None:
    """The exact SQL baseline candidate: answers every question from the public corpus
    alone, with freeze's own SQL over DuckDB. It takes no answer bundle: grade its output
    with `s8f-duck grade`.
    """
    from .baseline import baseline as run_baseline

    count = _run("baseline", lambda: run_baseline(public, output, Progress("baseline")))
    print(f"wrote {count} answers to {output}")


@app.command()
def explore(
    public: Annotated[Path, typer.Argument(help="A public corpus file.")],
    db: Annotated[Path, typer.Option(help="Where to write the DuckDB database.")],
    parquet: Annotated[Path | None, typer.Option(help="Also write the public records as a Parquet file.")] = None,
) -> None:
    """Build a DuckDB database with the same tables as `freeze --db`, from the public
    corpus alone (for people who only have the public file)."""
    from .explore import explore as run_explore

    _run("explore", lambda: run_explore(public, db, parquet))
    print(f"wrote {db}; query it with: s8f-duck sql --db {db} \"SELECT * FROM issues LIMIT 5\"")


@app.command()
def sql(
    query: Annotated[str | None, typer.Argument(help="SQL to run; without it, an interactive shell.")] = None,
    db: Annotated[Path | None, typer.Option(help="A database written by `freeze --db` or `explore` (read-only).")] = None,
    public: Annotated[Path | None, typer.Option(help="Or a public corpus, loaded into memory first.")] = None,
    format: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
) -> None:
    """Run SQL over the corpus tables: issues, labels, reference_edges, duplicate_edges,
    contradiction_cues, components, splits, answers, state_counts, label_counts,
    newest_issue_ids, most_recently_updated_issue_ids (see docs/querying.md)."""
    from . import explore as exploring

    if format not in ("table", "csv", "json"):
        print(f"s8f-duck sql: error: --format must be table, csv or json, not {format!r}", file=sys.stderr)
        raise typer.Exit(2)
    con = _run("sql", lambda: exploring.open_corpus(db, public))
    if query is None:
        exploring.shell(db, con, format)
        return
    print(exploring.render(*_run("sql", lambda: exploring.run_query(con, query)), format))


def main() -> None:
    from . import commit, interrupts, scratch

    interrupts.install()  # first: before any other thread starts
    commit.private_umask()
    sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # a lone surrogate in a cell
    try:
        scratch.start_run()
        app()
    except Exception as exc:  # outside a command's _run: its arguments, its printing
        try:
            _fail(" ".join(sys.argv[1:2]), exc)
        except typer.Exit as end:
            sys.exit(end.exit_code)


if __name__ == "__main__":
    main()
