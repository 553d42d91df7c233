"""`s8f-duck run` (a candidate in the sandbox, graded and recorded) and `s8f-duck runs`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from s8f_duck.cli.app import Quiet, Split, TableFormat, Verbose, fail, guarded
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.progress import Progress


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
    space_limit: Annotated[
        str, typer.Option(help="What the candidate may write in /out, and in /tmp and /dev/shm, each (in memory).")
    ] = "1GiB",
    files_limit: Annotated[
        int, typer.Option(help="Files and directories the candidate may make in /out, /tmp and /dev/shm together.")
    ] = 100_000,
    request_limit: Annotated[
        str, typer.Option(help="The body of one request to an allowed endpoint; a larger one is refused (413).")
    ] = "64MiB",
    submission_limit: Annotated[
        str | None,
        typer.Option(help="The largest submission graded; a larger one is recorded as unusable without being read "
                          "[default: 4 times the answer bundle's size, at least 16MiB]."),
    ] = None,  # fmt: skip
    allow_endpoint: Annotated[
        list[str] | None,
        typer.Option(help="NAME=URL: an HTTP(S) endpoint the candidate may call at $S8F_ENDPOINT_NAME, "
                          "through a proxy that records every request (repeatable)."),
    ] = None,  # fmt: skip
    semantic: Annotated[
        Path | None,
        typer.Option(help="A semantic answer bundle (adjudicate gold): also grade the submission's answers to the "
                          "rubric on it, and record the grade per field. Read here, never mounted."),  # fmt: skip
    ] = None,
    env: Annotated[list[str] | None, typer.Option(help="Pass this environment variable by name (repeatable).")] = None,
    ro: Annotated[
        list[Path] | None, typer.Option(help="Mount this path read-only at its own path, e.g. a virtual environment.")
    ] = None,
    created_after: Annotated[
        str | None,
        typer.Option(help="Also grade the records created at or after this day (YYYY-MM-DD), month or RFC 3339 "
                          "time (the grade's window member, as grade --created-after), and record it."),  # fmt: skip
    ] = None,
    model_cutoff: Annotated[
        str | None,
        typer.Option(help="The training cutoff of the model the candidate uses (a day, month or RFC 3339 time): "
                          "the leaderboard shows its score before and after it (runs --set-cutoff sets it later)."),
    ] = None,  # fmt: skip
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Run a candidate in a sandbox, grade and record it.

    The bubblewrap sandbox holds only the public corpus (/corpus/public.json), an empty /out
    for /out/submission.json, an empty /tmp (both in memory, of --space-limit each) and the
    mounts asked for, with no network but the allowed endpoints. The submission is graded here, and the run (cost, outcome, grade,
    every slice) recorded in the runs database. See docs/runs.md. With -q the summary is
    printed only when the run did not pass.

    \b
    Exit status:
      0  recorded, and the quality floor passed
      1  recorded, and the candidate failed, hit a limit, wrote nothing usable or missed
         the quality floor
      2  unusable input (the public corpus and the answer bundle are read first), or no
         sandbox can be made here (nothing is run then)
    """
    from s8f_duck.runs import runner
    from s8f_duck.runs.limits import Limits

    def go() -> runner.RunResult:
        limits = Limits(
            wall_seconds=time_limit,
            memory_bytes=runner.parse_size(memory_limit, "--memory-limit"),
            processes=process_limit,
            file_bytes=runner.parse_size(file_limit, "--file-limit"),
            output_bytes=runner.parse_size(output_limit, "--output-limit"),
            request_bytes=runner.parse_size(request_limit, "--request-limit"),
            space_bytes=runner.parse_size(space_limit, "--space-limit"),
            files=files_limit,
        )
        endpoints = dict(runner.parse_endpoint(text) for text in allow_endpoint or [])
        request = runner.RunRequest(
            public=public, answers=answers, runs_db=runs, name=name, command=command, split=split.value,
            candidate_dir=candidate_dir, limits=limits, endpoints=endpoints, env_names=env or [], read_only=ro or [],
            submission_bytes=runner.parse_size(submission_limit, "--submission-limit") if submission_limit else None,
            semantic=semantic, created_after=created_after, model_cutoff=model_cutoff,
        )  # fmt: skip
        return runner.run(request, progress)

    progress = Progress.for_options("run", quiet=quiet, verbose=verbose)
    result = guarded("run", go)
    progress.done()
    if not quiet or result.outcome != "graded" or not (result.grade or {}).get("quality_pass"):
        print(runner.summary(result))
    if result.outcome != "graded" or not (result.grade or {}).get("quality_pass"):
        raise typer.Exit(1)


def list_runs(
    runs: Annotated[Path, typer.Option(help="The runs database written by `s8f-duck run`.")],
    run_ids: Annotated[
        list[str] | None, typer.Argument(metavar="[RUN_ID]...", help="With --delete: the runs to remove.")
    ] = None,
    delete: Annotated[
        bool,
        typer.Option("--delete", help="Remove the RUN_IDs from every table and their run directories (asks nothing)."),
    ] = False,
    format: Annotated[TableFormat, typer.Option("--format", help="How to print the runs.")] = TableFormat.table,
    set_cutoff: Annotated[
        tuple[str, str] | None,
        typer.Option(metavar="RUN DATE", help="Record the training cutoff of the model a recorded run used (RUN: its "
                                              "id, or a name given to one run; DATE: a day, month or RFC 3339 "
                                              "time), instead of listing the runs."),
    ] = None,  # fmt: skip
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """List the recorded runs, newest first, or remove mistaken ones (--delete).

    Each with its outcome, grade and cost. `runs --runs DB --delete RUN_ID...` removes
    those runs from every table of the database and their run directories, and says what
    it removed; an id of no run is refused and nothing is removed.

    \b
    Exit status:
      0  listed (or removed)
      2  the database cannot be read, or a RUN_ID names no run
    """
    from s8f_duck.runs import records, runner

    if delete or run_ids:
        if not delete:
            fail("runs", UnusableInput(f"{run_ids[0]}: run ids are taken only with --delete (to remove those runs)"))
        if not run_ids:
            fail("runs", UnusableInput("--delete: give the RUN_IDs to remove"))
        removed = guarded("runs", lambda: records.delete_runs(runs, list(run_ids or [])))
        if not quiet:
            print(records.summary(removed))
        return

    if set_cutoff is not None:
        from s8f_duck.runs import clock

        done = guarded("runs", lambda: clock.set_cutoff(runs, *set_cutoff))
        if not quiet:
            print(f"run {done['run_id']}: model cutoff {done['model_cutoff']} ({done['model_cutoff_at']})")
        return
    names, data = guarded("runs", lambda: runner.list_runs(runs))
    print(runner.format_rows(names, data, format.value))
