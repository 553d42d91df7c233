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
import shutil
import signal
import sys
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from .errors import UnusableInput
from .progress import Progress

if TYPE_CHECKING:  # imported where serve listens: not paid by every command
    import socket

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


def _run(command: str, action: Callable[[], T]) -> T:
    """Run an action; turn every failure into one line and an exit status (failures.py)."""
    try:
        return action()
    except typer.Exit:
        raise
    except Exception as exc:
        _fail(command, exc)


def _fail(command: str, exc: BaseException) -> NoReturn:
    from . import failures, progress

    if isinstance(exc, BrokenPipeError):  # the reader of stdout left (`| head`): end quietly, as on SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor fail again flushing at exit
        raise typer.Exit(128 + signal.SIGPIPE) from None
    status, message = failures.describe(exc)
    progress.end_line()
    if failures.debugging():
        import traceback

        traceback.print_exception(exc)
    print(f"{' '.join(['s8f-duck', command]).strip()}: {message}", file=sys.stderr)
    raise typer.Exit(status) from None


def _say(quiet: bool, text: str, *, to_stderr: bool = False) -> None:
    """A command's summary: on stdout (stderr when stdout carries an output), unless -q."""
    if not quiet:
        print(text, file=sys.stderr if to_stderr else sys.stdout)


def _copy_to_stdout(path: Path) -> None:
    sys.stdout.flush()
    with open(path, "rb") as source:
        shutil.copyfileobj(source, sys.stdout.buffer)
    sys.stdout.buffer.flush()


@app.command()
def freeze(
    raw: Annotated[
        Path,
        typer.Argument(
            metavar="RAW",
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
        Path | None,
        typer.Option(help="JSON array of RE2 patterns to redact, in order (default: the committed map, which "
                          "covers S8f's own three patterns: it is no general PII scrubber)."),  # fmt: skip
    ] = None,
    min_records: Annotated[int, typer.Option(help="Refuse dumps with fewer records than this.")] = 50,
    input_format: Annotated[InputFormat, typer.Option(help=INPUT_FORMAT_HELP)] = InputFormat.auto,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Freeze a dump into public corpus, answers and report.

    Every derived table is computed in SQL by DuckDB, in a fixed order (docs/format.md
    describes what each artifact holds). The outputs appear only when every step
    and leak check succeeded; a failure leaves any existing file at the output paths
    untouched. Missing directories of the outputs are created. Prints the headline figures
    and the two digests.

    \b
    Exit status:
      0  frozen
      1  a leak check failed (nothing written)
      2  unusable input, option or environment (the message names it)
    """
    from . import freeze as freezing

    progress = Progress.for_options("freeze", quiet=quiet, verbose=verbose)
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
            progress=progress,
            input_format=input_format.value,
        ),
    )
    progress.done()
    _say(quiet, freezing.summary(result))


@app.command()
def grade(
    answers: Annotated[Path, typer.Option(help="The answer bundle (grader-only file).")],
    submission: Annotated[Path, typer.Option(help="The candidate's submission (fak-microcontext-submission/1).")],
    output: Annotated[
        Path | None,
        typer.Option(help="Also write the grade JSON (core fields, then the breakdown) here; - for standard output "
                          "(what --format prints then goes to stderr). Without it no file is written."),  # fmt: skip
    ] = None,
    format: Annotated[
        GradeFormat,
        typer.Option("--format", help="What to print: summary (one line), table (per-slice breakdown) or json."),
    ] = GradeFormat.summary,
    split: Annotated[
        Split,
        typer.Option(
            help="The records to compare: test (the held-out grade) or tune / train, to tune a candidate with "
            "full feedback while test stays unseen. Aggregates are corpus-wide and graded on test only.",
        ),
    ] = Split.test,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Grade a submission against the answer bundle.

    Compares it fact by fact with the held-out answers.

    The grade passes when every graded record is exact and there is no aggregate or citation
    error (docs/format.md, "Grading"). With -q nothing is printed unless --format is
    table or json: the exit status is the verdict.

    \b
    Exit status:
      0  the quality floor passed
      1  it did not, or the submission is bound to another corpus
      2  an input cannot be used (the message names the field and the record)
    """
    from . import grade as grading
    from .gojson import dumps

    progress = Progress.for_options("grade", quiet=quiet, verbose=verbose)
    to_stdout = output == STDOUT

    def go() -> dict:
        progress.step("grade the submission")
        report = grading.grade_to(answers, submission, None if to_stdout else output, split.value)
        progress.done()
        return report

    report = _run("grade", go)
    if to_stdout:
        sys.stdout.write(dumps(report))
        sys.stdout.flush()
    rendered = {"summary": grading.summary, "table": grading.table, "json": lambda r: dumps(r).rstrip()}
    _say(quiet and format == GradeFormat.summary, rendered[format.value](report), to_stderr=to_stdout)
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
    redactions: Annotated[
        Path | None,
        typer.Option(help="The redaction map the public text must hold no match of, also used for --raw "
                          "(default: the committed map)."),  # fmt: skip
    ] = None,
    expect_sha256: Annotated[
        str | None,
        typer.Option("--expect-sha256", metavar="DIGEST",
                     help="Require the public corpus to have this published SHA-256 digest (the only anchor "
                          "for its source string)."),  # fmt: skip
    ] = None,
    input_format: Annotated[InputFormat, typer.Option(help="For --raw: " + INPUT_FORMAT_HELP)] = InputFormat.auto,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Verify a frozen triple re-derives byte for byte.

    Checks the digest binding, the counts and the report's verdicts, then re-derives the
    public corpus, answer bundle and report from the public corpus with freeze's own SQL and
    requires each to equal its file byte for byte (key order, number forms and JSON types
    included). The public text must hold no match of the redaction map. The report's
    scrubbed_matches counts matches in the raw text, so without --raw only its type and
    range are checked.

    \b
    Exit status:
      0  verified
      1  a difference (the first ones are named)
      2  an unusable file or option
    """
    from . import paths
    from .freeze import DEFAULT_REDACTIONS
    from .verify import Verification, verdict
    from .verify import verify as verifying

    progress = Progress.for_options("verify", quiet=quiet, verbose=verbose)

    def run() -> Verification:
        inputs = {"--public": public, "--answers": answers, "--report": report, "--raw": raw, "--redactions": redactions}
        paths.check(inputs)
        return verifying(
            public, answers, report, raw_path=raw, redactions_path=redactions or DEFAULT_REDACTIONS,
            expect_sha256=expect_sha256, progress=progress, input_format=input_format.value,
        )  # fmt: skip

    result = _run("verify", run)
    progress.done()
    _run("verify", lambda: verdict(result.problems))
    anchor = "the expected one" if expect_sha256 else "compare it with the published one or pin it: --expect-sha256"
    lines = [
        "verified: digests bind, counts match, and every artifact re-derives from the public corpus",
        f"public corpus sha256 {result.corpus_sha256} ({anchor})",
    ]
    if raw is None:
        lines.append(
            f"report.scrubbed_matches ({result.scrubbed_matches}) is checked for its type and range only: "
            "it counts matches in the raw text (give --raw to re-derive it)"
        )
    _say(quiet, "\n".join(lines))


@app.command()
def baseline(
    public: Annotated[Path, typer.Option(help="The public corpus: the only input the baseline receives.")],
    output: Annotated[
        Path,
        typer.Option(help="Where to write the submission (fak-microcontext-submission/1); - for standard output."),
    ],
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Write the SQL baseline's submission.

    The exact SQL baseline candidate answers every question with freeze's own SQL over DuckDB and takes no answer bundle:
    grade its output with `s8f-duck grade`.

    \b
    Exit status:
      0  the submission is written
      2  an unusable input or output
    """
    import tempfile

    from .baseline import baseline as run_baseline

    progress = Progress.for_options("baseline", quiet=quiet, verbose=verbose)

    def go() -> int:
        if output != STDOUT:
            return run_baseline(public, output, progress)
        with tempfile.TemporaryDirectory(prefix="s8f-duck-baseline-") as directory:  # in this run's private one
            written = Path(directory) / "submission.json"
            count = run_baseline(public, written, progress)
            progress.done()
            _copy_to_stdout(written)
            return count

    count = _run("baseline", go)
    progress.done()
    _say(quiet, f"wrote {count} answers to {'standard output' if output == STDOUT else output}", to_stderr=output == STDOUT)


@app.command()
def explore(
    db: Annotated[Path, typer.Option(help="Where to write the DuckDB database.")],
    public_argument: Annotated[
        Path | None, typer.Argument(metavar="[PUBLIC]", help="The public corpus, as --public gives it.", hidden=True)
    ] = None,
    public: Annotated[Path | None, typer.Option(help="The public corpus file.")] = None,
    parquet: Annotated[Path | None, typer.Option(help="Also write the public records as a Parquet file.")] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Build a DuckDB database from a public corpus.

    The database has the same tables as `freeze --db`, for people who only have the public
    file; query it with `s8f-duck sql --db`. (The public corpus may also be given without
    --public, as the first argument.)

    \b
    Exit status:
      0  the database is written
      2  an unusable input or output
    """
    from .explore import explore as run_explore

    given = _one_public(public_argument, public)
    progress = Progress.for_options("explore", quiet=quiet, verbose=verbose)
    _run("explore", lambda: run_explore(given, db, parquet, progress))
    progress.done()
    _say(quiet, f"wrote {db}; query it with: s8f-duck sql --db {db} \"SELECT * FROM issues LIMIT 5\"")


def _one_public(positional: Path | None, option: Path | None) -> Path:
    """The public corpus of `explore`: --public, or the older positional spelling."""
    if positional is not None and option is not None and positional != option:
        raise typer.BadParameter("give the public corpus once: --public PATH", param_hint="--public")
    given = option or positional
    if given is None:
        raise typer.BadParameter("the public corpus is required", param_hint="--public")
    return given


@app.command()
def sql(
    query: Annotated[
        str | None,
        typer.Argument(metavar="[QUERY]", help="SQL to run (several statements: each result is printed); without it, an interactive "
                            "shell."),  # fmt: skip
    ] = None,
    db: Annotated[Path | None, typer.Option(help="A database written by `freeze --db` or `explore` (read-only).")] = None,
    public: Annotated[Path | None, typer.Option(help="Or a public corpus, loaded into memory first.")] = None,
    format: Annotated[
        TableFormat,
        typer.Option("--format", help="table: DuckDB's box table (long results elided); csv, json: every row, as "
                                      "DuckDB's COPY writes them (json: an array of objects)."),  # fmt: skip
    ] = TableFormat.table,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Run SQL over the corpus tables (read-only).

    Tables: issues, labels, reference_edges, duplicate_edges, contradiction_cues,
    components, splits, answers, state_counts, label_counts, newest_issue_ids,
    most_recently_updated_issue_ids (see docs/querying.md). A query can read no file and
    write none.

    Without a query: the `duckdb` shell when one on PATH can read the database (read-only,
    in safe mode), else a prompt of its own (statements end with ';'; .tables, .schema,
    .mode, .help; on a terminal, line editing and history).

    \b
    Exit status:
      0  the query ran (in the shell: until its end)
      2  an unusable database or corpus, or a query that failed
    """
    from . import explore as exploring

    progress = Progress.for_options("sql", quiet=quiet, verbose=verbose)
    _run("sql", lambda: exploring.check_corpus(db, public))
    note = ""
    if query is None and db is not None:
        from . import prompt

        cli, note = _run("sql", lambda: prompt.duckdb_shell(db))
        if cli is not None:
            prompt.exec_duckdb(cli, db)
    con = _run("sql", lambda: exploring.open_corpus(db, public, progress))
    progress.done()
    if query is None:
        from . import prompt

        prompt.run_prompt(con, format.value, note)
        return
    _run("sql", lambda: exploring.run_sql(con, query, format.value))


@app.command(context_settings={"allow_interspersed_args": False})
def run(
    command: Annotated[
        list[str], typer.Argument(metavar="COMMAND...", help="The candidate command and its arguments, after --.")
    ],
    public: Annotated[Path, typer.Option(help="The public corpus: the only corpus file the candidate sees.")],
    answers: Annotated[Path, typer.Option(help="The answer bundle: read by the grader here, never mounted.")],
    runs: Annotated[Path, typer.Option(help="The runs database (created when missing); run files go beside it.")],
    name: Annotated[str, typer.Option(help="A name for the candidate, shown on the leaderboard.")],
    split: Annotated[
        Split, typer.Option(help="The records graded: test (held out), or tune / train for tuning with full feedback.")
    ] = Split.test,
    candidate_dir: Annotated[
        Path | None, typer.Option(help="The candidate's files, mounted read-only at /candidate (its working directory).")
    ] = None,
    time_limit: Annotated[float, typer.Option(help="Wall-clock seconds before the sandbox is killed.")] = 3600,
    memory_limit: Annotated[str, typer.Option(help="Memory of all the candidate's processes together.")] = "4GB",
    process_limit: Annotated[int, typer.Option(help="Processes (and threads) the candidate may have at once.")] = 256,
    file_limit: Annotated[str, typer.Option(help="Size of any one file the candidate writes.")] = "1GiB",
    output_limit: Annotated[str, typer.Option(help="Captured stdout, and stderr, each; past it the run ends.")] = "16MiB",
    allow_endpoint: Annotated[
        list[str] | None,
        typer.Option(help="NAME=URL: an HTTP(S) endpoint the candidate may call at $S8F_ENDPOINT_NAME, "
                          "through a proxy that records every request (repeatable)."),
    ] = None,  # fmt: skip
    env: Annotated[list[str] | None, typer.Option(help="Pass this environment variable by name (repeatable).")] = None,
    ro: Annotated[
        list[Path] | None, typer.Option(help="Mount this path read-only at its own path, e.g. a virtual environment.")
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Run a candidate in a sandbox, grade and record it.

    The bubblewrap sandbox holds only the public corpus (/corpus/public.json), an empty /out
    for /out/submission.json, an empty /tmp and the mounts asked for, with no network but
    the allowed endpoints. The submission is graded here, and the run (cost, outcome, grade,
    every slice) recorded in the runs database. See docs/runs.md. With -q the summary is
    printed only when the run did not pass.

    \b
    Exit status:
      0  recorded, and the quality floor passed
      1  recorded, and the candidate failed, hit a limit, wrote nothing usable or missed
         the quality floor
      2  unusable input, or no sandbox can be made here (nothing is run then)
    """
    from . import runner
    from .limits import Limits

    def go() -> runner.RunResult:
        limits = Limits(
            wall_seconds=time_limit,
            memory_bytes=runner.parse_size(memory_limit, "--memory-limit"),
            processes=process_limit,
            file_bytes=runner.parse_size(file_limit, "--file-limit"),
            output_bytes=runner.parse_size(output_limit, "--output-limit"),
        )
        endpoints = dict(runner.parse_endpoint(text) for text in allow_endpoint or [])
        request = runner.RunRequest(
            public=public, answers=answers, runs_db=runs, name=name, command=command, split=split.value,
            candidate_dir=candidate_dir, limits=limits, endpoints=endpoints, env_names=env or [], read_only=ro or [],
        )  # fmt: skip
        return runner.run(request, progress)

    progress = Progress.for_options("run", quiet=quiet, verbose=verbose)
    result = _run("run", go)
    progress.done()
    if not quiet or result.outcome != "graded" or not (result.grade or {}).get("quality_pass"):
        print(runner.summary(result))
    if result.outcome != "graded" or not (result.grade or {}).get("quality_pass"):
        raise typer.Exit(1)


@app.command("runs")
def list_runs(
    runs: Annotated[Path, typer.Option(help="The runs database written by `s8f-duck run`.")],
    format: Annotated[TableFormat, typer.Option("--format", help="How to print the runs.")] = TableFormat.table,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """List the recorded runs, newest first.

    Each with its outcome, grade and cost.

    \b
    Exit status:
      0  listed
      2  the database cannot be read
    """
    from . import runner

    names, data = _run("runs", lambda: runner.list_runs(runs))
    print(runner.format_rows(names, data, format.value))


@app.command()
def serve(
    answers: Annotated[Path, typer.Option(help="The answer bundle: read by this process only.")],
    public: Annotated[Path, typer.Option(help="The public corpus the bundle is bound to (served at GET /corpus).")],
    db: Annotated[Path, typer.Option(help="The service database: every submission is stored here first.")],
    teams: Annotated[Path, typer.Option(help="TEAMS.json: [{\"team\": NAME, \"token_sha256\": HEX}] (see `s8f-duck team`).")],
    host: Annotated[str, typer.Option(help="Address to listen on; other than loopback only when asked.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    daily_limit: Annotated[int, typer.Option(help="Submissions per team per UTC day; past it, 429.")] = 5,
    release_after: Annotated[
        str | None, typer.Option(help="RFC 3339 time after which GET /answers returns the bundle (else 403).")
    ] = None,
    ladder_step: Annotated[float, typer.Option(help="The Ladder's step for held-out scores (a share of records).")] = 0.01,
    max_bytes: Annotated[str, typer.Option(help="Largest submission accepted; larger is 413.")] = "64MiB",
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Serve the answers behind a grading service.

    Teams POST submissions with a bearer token and get the Ladder's held-out score (no
    per-record detail) or, for the tune and train splits, the full grade; every submission
    is stored in the service database before the answer. Starlette on uvicorn. See
    docs/service.md. With -q the address it listens on is not printed.

    \b
    Exit status:
      0  stopped (Ctrl-C)
      2  an input is unusable or the port is taken
    """
    import uvicorn

    from . import paths, runner, service

    def start() -> service.Service:
        released = None
        if release_after is not None:
            try:
                released = datetime.fromisoformat(release_after.replace("Z", "+00:00"))
            except ValueError:
                raise UnusableInput(f"--release-after {release_after!r}: not an RFC 3339 time") from None
            if released.tzinfo is None:
                raise UnusableInput(f"--release-after {release_after!r}: give the offset (Z for UTC)")
        paths.make_parent(db, "--db")
        config = service.ServiceConfig(
            answers=answers, public=public, db=db, teams=service.load_teams(teams), daily_limit=daily_limit,
            release_after=released, ladder_step=ladder_step, max_bytes=runner.parse_size(max_bytes, "--max-bytes"),
        )  # fmt: skip
        return service.Service(config)

    def listen() -> socket.socket:
        import socket

        try:
            return socket.create_server((host, port))
        except OSError as exc:
            raise UnusableInput(f"--host {host} --port {port}: cannot listen: {exc.strerror or exc}") from None

    state = _run("serve", start)
    try:
        listener = _run("serve", listen)
        if not quiet:
            print(f"s8f-duck serve: http://{host}:{listener.getsockname()[1]}/ (corpus {state.public_sha256[:12]}…, "
                  f"store {db})", file=sys.stderr, flush=True)  # fmt: skip
        server = uvicorn.Server(uvicorn.Config(service.create_app(state), log_level="warning", access_log=False))
        server.run(sockets=[listener])
    finally:
        state.close()


@app.command()
def team(
    teams: Annotated[Path, typer.Option(help="The teams file of `s8f-duck serve` (created when missing).")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new team's name.")],
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Add a team and print its new bearer token.

    The token is printed once (also with -q: it is what the command is for); the file keeps
    only its SHA-256.

    \b
    Exit status:
      0  added
      2  the file is unusable or the team exists
    """
    from .paths import make_parent
    from .service import add_team

    def go() -> str:
        make_parent(teams, "--teams")
        return add_team(teams, name)

    token = _run("team", go)
    print(token)


@app.command()
def submit(
    submission: Annotated[
        Path, typer.Argument(metavar="SUBMISSION", help="The submission file (fak-microcontext-submission/1).")
    ],
    url: Annotated[str, typer.Option(help="The grading service, e.g. http://127.0.0.1:8765.")],
    token_file: Annotated[Path, typer.Option(help="A file holding the team's bearer token.")],
    split: Annotated[Split, typer.Option(help="test: the held-out score; tune / train: the full grade.")] = Split.test,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Send a submission to a grading service.

    Prints the service's answer (JSON).

    \b
    Exit status:
      0  graded
      1  the service refused it (the message says why: 400 unusable, 401 token, 413 size,
         429 daily limit)
      2  it cannot be sent
    """
    import httpx

    def send() -> httpx.Response:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
            body = submission.read_bytes()
        except OSError as exc:
            raise UnusableInput(f"{exc.filename}: cannot read: {exc.strerror}") from None
        try:
            return httpx.post(
                url.rstrip("/") + "/submissions", params={"split": split.value}, content=body, timeout=600,
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            )  # fmt: skip
        except httpx.HTTPError as exc:
            raise UnusableInput(f"{url}: cannot reach the service: {exc}") from None

    answer = _run("submit", send)
    print(answer.text)
    if answer.status_code != 201:
        retry = answer.headers.get("retry-after")
        print(f"s8f-duck submit: the service answered {answer.status_code}" + (f"; retry after {retry} s" if retry else ""),
              file=sys.stderr)  # fmt: skip
        raise typer.Exit(1)


@app.command()
def leaderboard(
    runs: Annotated[Path, typer.Option(help="The runs database written by `s8f-duck run`.")],
    html: Annotated[
        Path | None,
        typer.Option(help="Write the page here: one self-contained HTML file that links each run's files; - for "
                          "standard output."),  # fmt: skip
    ] = None,
    format: Annotated[
        TableFormat | None,
        typer.Option("--format", help="What to print: table (the default without --html), json or csv."),
    ] = None,
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option(help="RUN_A RUN_B (ids, or names of one run each): the paired bootstrap difference of F1 per "
                          "slice and label; both must be graded on the same corpus and split."),
    ] = None,  # fmt: skip
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples of the graded records.")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the resamples: the same seed gives the same intervals.")] = 0,
    min_label_facts: Annotated[
        int, typer.Option(help="Score each label with at least this many gold records among the graded ones.")
    ] = 5,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Compare the recorded runs (bootstrap intervals).

    Per run its outcome, grade and cost; per slice (state, labels, references, duplicate
    targets, contradiction cues, all facts) and per frequent label precision, recall and F1
    with 95% bootstrap intervals over the graded records; each aggregate exact or not.

    \b
    Exit status:
      0  compared
      2  the database or a --compare run cannot be used
    """
    from . import leaderboard as board
    from . import leaderboard_page, leaderboard_text
    from .artifacts import Outputs, write_text

    progress = Progress.for_options("leaderboard", quiet=quiet, verbose=verbose)

    def go() -> dict[str, object]:
        request = board.Request(runs, resamples, seed, min_label_facts, tuple(compare) if compare else None)
        progress.step("score the runs")
        document = board.compute(request)
        if html is not None:
            progress.step("write the page")
        if html == STDOUT:
            progress.done()  # its line is off the terminal before the page is on it
            sys.stdout.write(leaderboard_page.render(document, Path("leaderboard.html")))
            sys.stdout.flush()
        elif html is not None:
            outputs = Outputs()
            try:
                write_text(outputs.temp_for(html), leaderboard_page.render(document, html))
                outputs.commit()
            finally:
                outputs.discard()
        return document

    document = _run("leaderboard", go)
    progress.done()
    chosen = format or (None if html is not None else TableFormat.table)
    if chosen is None:
        graded = sum(1 for run in document["runs"] if run["graded_records"] is not None)
        where = "standard output" if html == STDOUT else html
        _say(quiet, f"wrote {where}: {len(document['runs'])} runs, {graded} graded ({resamples} resamples, seed {seed})",
             to_stderr=html == STDOUT)  # fmt: skip
    else:
        render = {"table": leaderboard_text.to_table, "json": leaderboard_text.to_json, "csv": leaderboard_text.to_csv}
        print(render[chosen.value](document).rstrip("\n"), file=sys.stderr if html == STDOUT else sys.stdout)


def _app_for(args: list[str]) -> typer.Typer:
    """The application with only the command that runs, when the first argument names
    one: Typer builds every registered command's options on each call (about 20 ms, a
    tenth of a small grade), and the others are not used. Anything else (the top-level
    help, --version, a mistyped command) gets the whole application."""
    chosen = [c for c in app.registered_commands if args and _command_name(c) == args[0]]
    if not chosen:
        return app
    one = copy.copy(app)
    one.registered_commands = chosen
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


def main() -> None:
    from . import commit, interrupts, scratch

    interrupts.install()  # first: before any other thread starts
    commit.private_umask()
    sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # a lone surrogate in a cell
    try:
        try:
            scratch.start_run()
            _app_for(sys.argv[1:])()
        except Exception as exc:  # outside a command's _run: its arguments, its printing
            try:
                _fail(" ".join(sys.argv[1:2]), exc)
            except typer.Exit as end:
                sys.exit(end.exit_code)
    except SystemExit as end:
        if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT_COMMANDS:
            _exit_now(end.code)
        raise


if __name__ == "__main__":
    main()
