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
        "Freeze a GitHub issue dump (`gh issue list --json`, or the REST API's issues) into a "
        "leak-controlled benchmark (public corpus, "
        "answer bundle, report), verify it, grade submissions, run the exact SQL baseline, "
        "and explore the corpus with SQL.\n\n"
        "Exit status: 0 success, 1 a verdict against the input (verification failed, quality "
        "floor missed), 2 unusable input or usage.\n\n"
        "Environment: S8F_DUCK_MEMORY_LIMIT caps DuckDB's memory (default 3GB); beyond it, work "
        "spills to a temporary directory."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")

INPUT_FORMATS = ("auto", "gh", "rest")  # input_forms.INPUT_FORMATS, without importing DuckDB for --help
INPUT_FORMAT_HELP = (
    "The dump's form: auto (told from its content), gh (the `gh issue list --json` array) or rest "
    "(GitHub's REST issue objects; pull requests are dropped)."
)


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


def _check_input_format(command: str, value: str) -> None:
    if value not in INPUT_FORMATS:
        print(f"s8f-duck {command}: error: --input-format must be auto, gh or rest, not {value!r}", file=sys.stderr)
        raise typer.Exit(2)


@app.command()
def freeze(
    raw: Annotated[
        Path,
        typer.Argument(
            help="The issue dump: the JSON array `gh issue list --json ...` prints, or GitHub's REST issue objects "
            "(`gh api --paginate 'repos/OWNER/REPO/issues?state=all&per_page=100'`) as an array, pages or JSON "
            "Lines; either may be gzip-compressed."
        ),
    ],
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
    input_format: Annotated[str, typer.Option(help=INPUT_FORMAT_HELP)] = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Freeze RAW into the public corpus, answer bundle and report (byte-exact S8f layout).

    Every derived table is computed by the SQL files under sql/ (see `s8f_duck/steps.py`
    for their order). Outputs appear only when every step and leak check succeeded; a
    failure leaves any existing file at the output paths untouched.
    """
    from . import freeze as freezing

    _check_input_format("freeze", input_format)
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
            input_format=input_format,
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
    from .artifacts import Outputs, write_text
    from .gojson import dumps

    if format not in ("summary", "table", "json"):
        print(f"s8f-duck grade: error: --format must be summary, table or json, not {format!r}", file=sys.stderr)
        raise typer.Exit(2)

    def run() -> dict[str, object]:
        report = grading.grade(answers, submission)
        outputs = Outputs()
        try:
            write_text(outputs.temp_for(output), dumps(report))
            outputs.commit()
        finally:
            outputs.discard()
        return report

    report = _run("grade", run)
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
    input_format: Annotated[str, typer.Option(help="For --raw: " + INPUT_FORMAT_HELP)] = "auto",
) -> None:
    """Verify a frozen triple: digest binding, counts and report verdicts (as the reference
    does), then re-derive everything from the public corpus with freeze's own SQL (splits,
    hashes, answers, aggregates, report counts, leak checks, oracle grade) and require it
    to equal the files. Exit 0 verified, 1 a difference (the first ones are named), 2
    an unusable file.
    """
    from .freeze import DEFAULT_REDACTIONS
    from .verify import verdict
    from .verify import verify as verifying

    _check_input_format("verify", input_format)
    problems = _run(
        "verify",
        lambda: verifying(
            public, answers, report, raw_path=raw, redactions_path=redactions or DEFAULT_REDACTIONS,
            progress=Progress("verify"), input_format=input_format,
        ),
    )  # fmt: skip
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
    app()


if __name__ == "__main__":
    main()
