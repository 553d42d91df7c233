"""The `s8f-duck` command line: parses arguments, calls one function, maps errors to exits.

Exit status (docs/format.md §10): 0 success; 1 a verdict against the input (quality floor missed,
verification or leak check failed); 2 unusable input, environment or usage, named on
stderr; 3 a bug in s8f-duck (failures.py); 128 + the signal's number when stopped by
SIGINT, SIGTERM or SIGHUP (interrupts.py).
"""

from __future__ import annotations

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
        "Freeze a GitHub issue dump (`gh issue list --json`, or the REST API's issues) into a "
        "leak-controlled benchmark (public corpus, "
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

INPUT_FORMATS = ("auto", "gh", "rest")  # input_forms.INPUT_FORMATS, without importing DuckDB for --help
INPUT_FORMAT_HELP = (
    "The dump's form: auto (told from its content), gh (the `gh issue list --json` array) or rest "
    "(GitHub's REST issue objects; pull requests are dropped)."
)


class Split(str, Enum):
    """The split a grade compares (grade.SPLITS)."""

    test = "test"
    tune = "tune"
    train = "train"


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


def _check_input_format(command: str, value: str) -> None:
    if value not in INPUT_FORMATS:
        print(f"s8f-duck {command}: error: --input-format must be auto, gh or rest, not {value!r}", file=sys.stderr)
        raise typer.Exit(2)


def _fail(command: str, exc: BaseException) -> NoReturn:
    from . import failures

    status, message = failures.describe(exc)
    if failures.debugging():
        import traceback

        traceback.print_exception(exc)
    print(f"{' '.join(['s8f-duck', command]).strip()}: {message}", file=sys.stderr)
    raise typer.Exit(status) from None



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
    split: Annotated[
        Split,
        typer.Option(
            help="The records to compare: test (the held-out grade) or tune / train, to tune a candidate with "
            "full feedback while test stays unseen. Aggregates are corpus-wide and graded on test only.",
        ),
    ] = Split.test,
) -> None:
    """Grade a submission fact by fact against the held-out test answers (docs/format.md §8).

    Exit 0 when quality passes (every test record exact, no aggregate or citation
    error); 1 when it does not, or when the submission is bound to another corpus; 2
    when an input cannot be used (the message names the field and the record).
    """
    from . import grade as grading
    from .gojson import dumps

    if format not in ("summary", "table", "json"):
        print(f"s8f-duck grade: error: --format must be summary, table or json, not {format!r}", file=sys.stderr)
        raise typer.Exit(2)

    report = _run("grade", lambda: grading.grade_to(answers, submission, output, split.value))
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
    input_format: Annotated[str, typer.Option(help="For --raw: " + INPUT_FORMAT_HELP)] = "auto",
) -> None:
    """Verify a frozen triple: digest binding, counts and report verdicts (as the reference
    does), then re-derive the public corpus, answer bundle and report from the public
    corpus with freeze's own SQL (splits, hashes, answers, aggregates, report counts, leak
    checks, oracle grade) and require each to equal its file byte for byte: key order,
    number forms and JSON types included. The public text must hold no match of the
    redaction map. The report's scrubbed_matches counts matches in the raw text, so
    without --raw only its type and range are checked. Exit 0 verified, 1 a difference
    (the first ones are named), 2 an unusable file or option.
    """
    from . import paths
    from .freeze import DEFAULT_REDACTIONS
    from .verify import Verification, verdict
    from .verify import verify as verifying

    def run() -> Verification:
        inputs = {"--public": public, "--answers": answers, "--report": report, "--raw": raw, "--redactions": redactions}
        paths.check(inputs)
        return verifying(
            public, answers, report, raw_path=raw, redactions_path=redactions or DEFAULT_REDACTIONS,
            expect_sha256=expect_sha256, progress=Progress("verify"), input_format=input_format,
        )  # fmt: skip

    _check_input_format("verify", input_format)
    result = _run("verify", run)
    _run("verify", lambda: verdict(result.problems))
    print("verified: digests bind, counts match, and every artifact re-derives from the public corpus")
    anchor = "the expected one" if expect_sha256 else "compare it with the published one or pin it: --expect-sha256"
    print(f"public corpus sha256 {result.corpus_sha256} ({anchor})")
    if raw is None:
        print(
            f"report.scrubbed_matches ({result.scrubbed_matches}) is checked for its type and range only: "
            "it counts matches in the raw text (give --raw to re-derive it)"
        )


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


class ListFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


@app.command(context_settings={"allow_interspersed_args": False})
def run(
    command: Annotated[list[str], typer.Argument(help="The candidate command and its arguments, after --.")],
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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Run a candidate blind: in a bubblewrap sandbox that holds only the public corpus
    (/corpus/public.json), an empty /out for /out/submission.json, an empty /tmp and the
    mounts asked for, with no network but the allowed endpoints; then grade the submission
    here and record the run (cost, outcome, grade, every slice) in the runs database.

    Exit 0: recorded, and the quality floor passed. 1: recorded, and the candidate failed,
    hit a limit, wrote nothing usable or missed the quality floor. 2: unusable input, or no
    sandbox can be made here (nothing is run then). See docs/runs.md.
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
        return runner.run(request, Progress("run", enabled=False if quiet else None))

    result = _run("run", go)
    if not quiet or result.outcome != "graded" or not (result.grade or {}).get("quality_pass"):
        print(runner.summary(result))
    if result.outcome != "graded" or not (result.grade or {}).get("quality_pass"):
        raise typer.Exit(1)


@app.command("runs")
def list_runs(
    runs: Annotated[Path, typer.Option(help="The runs database written by `s8f-duck run`.")],
    format: Annotated[ListFormat, typer.Option("--format", help="How to print the runs.")] = ListFormat.table,
) -> None:
    """List the recorded runs, newest first: outcome, grade and cost. Exit 0, or 2 when
    the database cannot be read."""
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
) -> None:
    """Serve the held-out answers behind a grading service (Starlette on uvicorn): teams
    POST submissions with a bearer token and get the Ladder's held-out score (no per-record
    detail) or, for the tune and train splits, the full grade; every submission is stored
    in the service database before the answer. See docs/service.md.

    Exit 0 when stopped (Ctrl-C); 2 when an input is unusable or the port is taken.
    """
    import uvicorn

    from . import runner, service

    def start() -> service.Service:
        released = None
        if release_after is not None:
            try:
                released = datetime.fromisoformat(release_after.replace("Z", "+00:00"))
            except ValueError:
                raise UnusableInput(f"--release-after {release_after!r}: not an RFC 3339 time") from None
            if released.tzinfo is None:
                raise UnusableInput(f"--release-after {release_after!r}: give the offset (Z for UTC)")
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
        print(f"s8f-duck serve: http://{host}:{listener.getsockname()[1]}/ (corpus {state.public_sha256[:12]}…, "
              f"store {db})", file=sys.stderr, flush=True)  # fmt: skip
        server = uvicorn.Server(uvicorn.Config(service.create_app(state), log_level="warning", access_log=False))
        server.run(sockets=[listener])
    finally:
        state.close()


@app.command()
def team(
    teams: Annotated[Path, typer.Option(help="The teams file of `s8f-duck serve` (created when missing).")],
    name: Annotated[str, typer.Argument(help="The new team's name.")],
) -> None:
    """Add a team: prints its new bearer token once; the file keeps only the token's
    SHA-256. Exit 0, or 2 when the file is unusable or the team exists."""
    from .service import add_team

    token = _run("team", lambda: add_team(teams, name))
    print(token)


@app.command()
def submit(
    submission: Annotated[Path, typer.Argument(help="The submission file (fak-microcontext-submission/1).")],
    url: Annotated[str, typer.Option(help="The grading service, e.g. http://127.0.0.1:8765.")],
    token_file: Annotated[Path, typer.Option(help="A file holding the team's bearer token.")],
    split: Annotated[Split, typer.Option(help="test: the held-out score; tune / train: the full grade.")] = Split.test,
) -> None:
    """Send a submission to a grading service and print its answer (JSON). Exit 0 when
    it was graded, 1 when the service refused it (the message says why: 400 unusable,
    401 token, 413 size, 429 daily limit), 2 when it cannot be sent."""
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
        Path | None, typer.Option(help="Write the page here: one self-contained HTML file that links each run's files.")
    ] = None,
    format: Annotated[
        ListFormat | None,
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
) -> None:
    """Compare the recorded runs: per run its outcome, grade and cost; per slice (state,
    labels, references, duplicate targets, contradiction cues, all facts) and per frequent
    label precision, recall and F1 with 95% bootstrap intervals over the graded records;
    each aggregate exact or not. Exit 0, or 2 when the database or a --compare run cannot
    be used."""
    from . import leaderboard as board
    from . import leaderboard_page, leaderboard_text
    from .artifacts import Outputs, write_text

    def go() -> dict[str, object]:
        request = board.Request(runs, resamples, seed, min_label_facts, tuple(compare) if compare else None)
        document = board.compute(request)
        if html is not None:
            outputs = Outputs()
            try:
                write_text(outputs.temp_for(html), leaderboard_page.render(document, html))
                outputs.commit()
            finally:
                outputs.discard()
        return document

    document = _run("leaderboard", go)
    chosen = format or (None if html is not None else ListFormat.table)
    if chosen is None:
        graded = sum(1 for run in document["runs"] if run["graded_records"] is not None)
        print(f"wrote {html}: {len(document['runs'])} runs, {graded} graded ({resamples} resamples, seed {seed})")
    else:
        render = {"table": leaderboard_text.to_table, "json": leaderboard_text.to_json, "csv": leaderboard_text.to_csv}
        print(render[chosen.value](document).rstrip("\n"))


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
