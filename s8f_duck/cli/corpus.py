"""The corpus commands: `freeze`, `verify`, `baseline`, `explore` and `sql`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from s8f_duck.cli.app import (
    INPUT_FORMAT_HELP,
    STDOUT,
    InputFormat,
    Quiet,
    TableFormat,
    Verbose,
    copy_to_stdout,
    guarded,
    say,
)  # fmt: skip
from s8f_duck.safety.progress import Progress


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
    keep_splits: Annotated[
        Path | None,
        typer.Option(help="An older public corpus of the same repository: its records keep their splits; a new "
                          "record joining their groups takes theirs, one joining groups of different splits is "
                          "left out (the report's keep_splits counts and names them)."),  # fmt: skip
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace outputs made from another dump (refused without it).")
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Freeze a dump into public corpus, answers and report.

    Every derived table is computed in SQL by DuckDB, in a fixed order (docs/format.md
    describes what each artifact holds). The outputs appear only when every step
    and leak check succeeded; a failure leaves any existing file at the output paths
    untouched. Missing directories of the outputs are created. An existing output made
    from other inputs (another dump, source or redaction map) is refused unless --force;
    the same dump again gives the same files. Prints the headline figures and the two
    digests.

    \b
    Exit status:
      0  frozen
      1  a leak check failed (nothing written)
      2  unusable input, option or environment (the message names it)
    """
    from s8f_duck.corpus import freeze as freezing

    progress = Progress.for_options("freeze", quiet=quiet, verbose=verbose)
    result = guarded(
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
            keep_splits=keep_splits,
            force=force,
        ),
    )
    progress.done()
    say(quiet, freezing.summary(result, freezing.default_map_note(source) if redactions is None else None))


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
    semantic: Annotated[
        Path | None, typer.Option(help="Also re-derive this semantic answer bundle (adjudicate gold) from the "
                                       "--packet and --labels files it was made of.")  # fmt: skip
    ] = None,
    semantic_report: Annotated[Path | None, typer.Option(help="With --semantic: its report.")] = None,
    packet: Annotated[Path | None, typer.Option(help="With --semantic: the adjudication packet.")] = None,
    labels: Annotated[
        list[Path] | None, typer.Option("--labels", help="With --semantic: an adjudicator's labels file (repeat).")
    ] = None,
    resolver: Annotated[Path | None, typer.Option(help="With --semantic: the resolver's labels, if any.")] = None,
    resolver_packet: Annotated[Path | None, typer.Option(help="With --resolver: the packet it labelled.")] = None,
    keep_splits: Annotated[
        Path | None,
        typer.Option(help="The older public corpus the triple was frozen with (freeze --keep-splits): its splits "
                          "are kept again in the re-derivation."),  # fmt: skip
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Verify a frozen triple re-derives byte for byte.

    Checks the digest binding, the counts and the report's verdicts, then re-derives the
    public corpus, answer bundle and report from the public corpus with freeze's own SQL and
    requires each to equal its file byte for byte (key order, number forms and JSON types
    included). The public text must hold no match of the redaction map. The report's
    scrubbed_matches counts matches in the raw text, so without --raw only its type and
    range are checked. With --semantic, the semantic answer bundle and its report are also
    derived again from the packet and labels files (the policy, resamples and seed read from
    the report) and must equal their files byte for byte.

    \b
    Exit status:
      0  verified
      1  a difference (the first ones are named)
      2  an unusable file or option
    """
    from s8f_duck.corpus.freeze import DEFAULT_REDACTIONS
    from s8f_duck.corpus.verify import Verification, verdict
    from s8f_duck.corpus.verify import verify as verifying
    from s8f_duck.safety import arguments

    progress = Progress.for_options("verify", quiet=quiet, verbose=verbose)

    def run() -> Verification:
        inputs = {"--public": public, "--answers": answers, "--report": report, "--raw": raw, "--redactions": redactions,
                  "--semantic": semantic, "--semantic-report": semantic_report, "--packet": packet,
                  "--resolver": resolver, "--resolver-packet": resolver_packet, "--keep-splits": keep_splits,
                  **{f"--labels {n + 1}": p for n, p in enumerate(labels or [])}}  # fmt: skip
        arguments.check(inputs)
        result = verifying(
            public, answers, report, raw_path=raw, redactions_path=redactions or DEFAULT_REDACTIONS,
            expect_sha256=expect_sha256, progress=progress, input_format=input_format.value, keep_splits=keep_splits,
        )  # fmt: skip
        if semantic is not None or semantic_report is not None:
            result.problems += _semantic_problems(public, answers, semantic, semantic_report, packet, labels or [],
                                                  resolver, resolver_packet, progress)  # fmt: skip
        return result

    result = guarded("verify", run)
    progress.done()
    guarded("verify", lambda: verdict(result.problems))
    anchor = "the expected one" if expect_sha256 else "compare it with the published one or pin it: --expect-sha256"
    lines = [
        "verified: digests bind, counts match, and every artifact re-derives from the public corpus",
        f"public corpus sha256 {result.corpus_sha256} ({anchor})",
    ]
    if semantic is not None:
        lines.append(f"the semantic answer bundle and its report re-derive from {packet} and its labels files")
    if raw is None:
        lines.append(
            f"report.scrubbed_matches ({result.scrubbed_matches}) is checked for its type and range only: "
            "it counts matches in the raw text (give --raw to re-derive it)"
        )
    say(quiet, "\n".join(lines))


def _semantic_problems(
    public: Path, answers: Path, semantic: Path | None, semantic_report: Path | None, packet: Path | None,
    labels: list[Path], resolver: Path | None, resolver_packet: Path | None, progress: Progress,
) -> list[str]:  # fmt: skip
    """verify --semantic: the semantic bundle and report against their re-derivation."""
    from s8f_duck.adjudication.gold import read_inputs, report_gates, report_settings, verify_semantic
    from s8f_duck.safety.errors import UnusableInput

    if semantic is None or semantic_report is None or packet is None or not labels:
        raise UnusableInput("--semantic needs --semantic-report, --packet and the --labels files it was made of")
    policy, resamples, seed = report_settings(semantic_report)
    inputs = read_inputs(public, packet, labels, policy, resolver, resolver_packet, answers, resamples, seed,
                         **report_gates(semantic_report))  # fmt: skip
    return verify_semantic(semantic, semantic_report, inputs, progress)


def baseline(
    output: Annotated[
        Path,
        typer.Option(help="Where to write the submission (fak-microcontext-submission/1); - for standard output."),
    ],
    public_argument: Annotated[
        Path | None, typer.Argument(metavar="[PUBLIC]", help="The public corpus, as --public gives it.", hidden=True)
    ] = None,
    public: Annotated[
        Path | None, typer.Option(help="The public corpus: the only input the baseline receives.")
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Write the SQL baseline's submission.

    The exact SQL baseline candidate answers every question with freeze's own SQL over DuckDB and takes no answer bundle:
    grade its output with `s8f-duck grade`. (The public corpus may also be given without
    --public, as the first argument, as `explore` takes it.)

    \b
    Exit status:
      0  the submission is written
      2  an unusable input or output
    """
    import tempfile

    from s8f_duck.corpus.baseline import baseline as run_baseline

    public = _one_public(public_argument, public)
    progress = Progress.for_options("baseline", quiet=quiet, verbose=verbose)

    def go() -> int:
        if output != STDOUT:
            return run_baseline(public, output, progress)
        with tempfile.TemporaryDirectory(prefix="s8f-duck-baseline-") as directory:  # in this run's private one
            written = Path(directory) / "submission.json"
            count = run_baseline(public, written, progress)
            progress.done()
            copy_to_stdout(written)
            return count

    count = guarded("baseline", go)
    progress.done()
    say(quiet, f"wrote {count} answers to {'standard output' if output == STDOUT else output}", to_stderr=output == STDOUT)


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
    from s8f_duck.corpus.explore import explore as run_explore

    given = _one_public(public_argument, public)
    progress = Progress.for_options("explore", quiet=quiet, verbose=verbose)
    guarded("explore", lambda: run_explore(given, db, parquet, progress))
    progress.done()
    say(quiet, f"wrote {db}; query it with: s8f-duck sql --db {db} \"SELECT * FROM issues LIMIT 5\"")


def _one_public(positional: Path | None, option: Path | None) -> Path:
    """The public corpus of `explore` and `baseline`: --public, or as the first argument."""
    if positional is not None and option is not None and positional != option:
        raise typer.BadParameter("give the public corpus once: --public PATH", param_hint="--public")
    given = option or positional
    if given is None:
        raise typer.BadParameter("the public corpus is required", param_hint="--public")
    return given


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
    from s8f_duck.corpus import explore as exploring

    progress = Progress.for_options("sql", quiet=quiet, verbose=verbose)
    guarded("sql", lambda: exploring.check_corpus(db, public))
    note = ""
    if query is None and db is not None:
        from s8f_duck.corpus import prompt

        cli, note = guarded("sql", lambda: prompt.duckdb_shell(db))
        if cli is not None:
            prompt.exec_duckdb(cli, db)
    con = guarded("sql", lambda: exploring.open_corpus(db, public, progress))
    progress.done()
    if query is None:
        from s8f_duck.corpus import prompt

        prompt.run_prompt(con, format.value, note)
        return
    guarded("sql", lambda: exploring.run_sql(con, query, format.value))
