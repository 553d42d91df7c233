"""`s8f-duck grade`: a submission graded against an answer bundle."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from s8f_duck.cli.app import STDOUT, GradeFormat, Quiet, Split, Verbose, guarded, say
from s8f_duck.safety.progress import Progress


def grade(
    answers: Annotated[Path, typer.Option(help="The answer bundle (grader-only file).")],
    submissions: Annotated[
        list[Path] | None,
        typer.Argument(metavar="[SUBMISSION]...", help="Submissions to grade, as many as given (with --submission)."),
    ] = None,
    submission: Annotated[
        list[Path] | None,
        typer.Option(help="A candidate's submission (fak-microcontext-submission/1); repeatable."),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(help="Also write the grade JSON (core fields, then the breakdown) here; - for standard output "
                          "(what --format prints then goes to stderr). Without it no file is written."),  # fmt: skip
    ] = None,
    output_dir: Annotated[
        Path | None,
        typer.Option(help="Write each submission's grade JSON to DIR/NAME.grade.json (NAME: its file name without "
                          ".json), the bytes --output writes for it alone; all at once."),  # fmt: skip
    ] = None,
    format: Annotated[
        GradeFormat,
        typer.Option("--format", help="What to print: summary (one line), table (per-slice breakdown; with several "
                                      "submissions a row each), json, or jsonl (a line per submission)."),
    ] = GradeFormat.summary,
    split: Annotated[
        Split,
        typer.Option(
            help="The records to compare: test (the held-out grade) or tune / train, to tune a candidate with "
            "full feedback while test stays unseen. Aggregates are corpus-wide and graded on test only.",
        ),
    ] = Split.test,
    semantic: Annotated[
        Path | None,
        typer.Option(help="Also grade the submission's answers to the rubric (its semantic member) against this "
                          "semantic answer bundle (adjudicate gold): per field coverage, accuracy and macro-F1 "
                          "with intervals, beside the adjudicators' own agreement."),  # fmt: skip
    ] = None,
    created_after: Annotated[
        str | None,
        typer.Option(help="Also grade, in a member `window`, the graded records created at or after this day "
                          "(YYYY-MM-DD, UTC) or RFC 3339 time: records, exact records, errors, per-slice F1 and "
                          "the primary score with intervals (for a model trained before it). Needs --public."),
    ] = None,
    public: Annotated[
        Path | None,
        typer.Option(help="The public corpus the answers are bound to: the records' creation dates "
                          "(--created-after)."),  # fmt: skip
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Grade submissions against the answer bundle.

    Compares each fact by fact with the held-out answers. Several submissions (as
    arguments, or --submission repeated) are graded in one command: the bundle and each
    submission read once, then one pass of the grader's SQL over all of them (100 S8f
    submissions take under a second). Each gets the grade it gets alone, and one that
    cannot be used is named and the others still graded.

    The grade passes when every graded record is exact and there is no aggregate or citation
    error (docs/format.md, "Grading"). With -q nothing is printed unless --format is
    table or json: the exit status is the verdict.

    \b
    Exit status:
      0  the quality floor passed (every submission's)
      1  it did not, or a submission is bound to another corpus (or, of several, cannot be used)
      2  an input cannot be used (the message names the field and the record)
    """
    from s8f_duck.grading import grade as grading
    from s8f_duck.reading.gojson import dumps

    given = [*(submission or []), *(submissions or [])]
    if not given:
        guarded("grade", lambda: _no_submission())
    window = guarded("grade", lambda: _window(created_after, public))
    if len(given) > 1 or output_dir is not None or format == GradeFormat.jsonl:
        _grade_many(answers, given, output, output_dir, format, split, semantic, quiet, verbose, window)
        return
    (one,) = given
    progress = Progress.for_options("grade", quiet=quiet, verbose=verbose)
    to_stdout = output == STDOUT

    def go() -> dict:
        progress.step("grade the submission")
        report = grading.grade_to(answers, one, None if to_stdout else output, split.value, semantic, window)
        progress.done()
        return report

    report = guarded("grade", go)
    if to_stdout:
        sys.stdout.write(dumps(report))
        sys.stdout.flush()
    rendered = {"summary": grading.summary, "table": grading.table, "json": lambda r: dumps(r).rstrip()}
    say(quiet and format == GradeFormat.summary, rendered[format.value](report), to_stderr=to_stdout)
    if not report["corpus_bound"] and (format == GradeFormat.json or to_stdout):  # else the printed line says it
        print(
            f"s8f-duck grade: the submission is bound to corpus {report['submission_corpus_sha256']!r}, "
            f"but the answers are for corpus {report['corpus_sha256']}: not graded (all-zero core report)",
            file=sys.stderr,
        )
    if not report["quality_pass"]:
        raise typer.Exit(1)


def _window(created_after: str | None, public: Path | None) -> Any:
    """The creation window the options name (grading.window.Window), or None; one option
    without the other is unusable."""
    from s8f_duck.safety.errors import UnusableInput

    if created_after is None and public is None:
        return None
    if created_after is None or public is None:
        raise UnusableInput("--created-after and --public go together: the window's dates are the public corpus's")
    from s8f_duck.grading.window import Window

    return Window(created_after, public)


def _no_submission() -> None:
    from s8f_duck.safety.errors import UnusableInput

    raise UnusableInput("no submission given: name it (SUBMISSION, or --submission FILE)")


def _grade_many(
    answers: Path, given: list[Path], output: Path | None, output_dir: Path | None, format: GradeFormat,
    split: Split, semantic: Path | None, quiet: bool, verbose: bool, window: Any = None,
) -> None:  # fmt: skip
    """Several submissions (or --output-dir, or jsonl): a grade each, then one verdict."""
    import json

    from s8f_duck.grading import grade as grading
    from s8f_duck.reading.gojson import dumps
    from s8f_duck.safety.commit import Outputs
    from s8f_duck.safety.errors import UnusableInput
    from s8f_duck.safety.printable import printable_lines
    from s8f_duck.safety.writers import write_text

    progress = Progress.for_options("grade", quiet=quiet, verbose=verbose)
    targets = [output_dir / f"{path.name.removesuffix('.json')}.grade.json" for path in given] if output_dir else []

    def go() -> list[grading.Graded]:
        if output is not None:
            raise UnusableInput("--output takes one submission's grade: with several, give --output-dir")
        if len(set(targets)) < len(targets):
            twice = next(t for t in targets if targets.count(t) > 1)
            raise UnusableInput(f"--output-dir: two submissions would write {twice}: give them other names")
        progress.step(f"grade {len(given)} submissions")
        graded = grading.grade_many(answers, given, split.value, semantic, window)
        written = [(target, g.report) for target, g in zip(targets, graded) if g.report is not None]
        if written:
            with Outputs([target for target, _ in written]) as outputs:
                for target, report in written:
                    write_text(outputs.temp_for(target), dumps(report))
                outputs.commit()
        progress.done()
        return graded

    graded = guarded("grade", go)
    for g in graded:
        if g.error is not None:
            print(printable_lines(f"s8f-duck grade: {g.error}"), file=sys.stderr)
    if format == GradeFormat.jsonl:
        for g in graded:
            print(json.dumps({"submission": str(g.submission), "grade": g.report, "error": g.error}))
    elif format == GradeFormat.json:
        print(dumps([{"submission": str(g.submission), "grade": g.report, "error": g.error} for g in graded]).rstrip())
    elif format == GradeFormat.table:
        print(grading.batch_table(graded))
    else:
        lines = [f"{g.submission}: " + (grading.summary(g.report).split("\n")[0] if g.report else f"UNUSABLE: {g.error}")
                 for g in graded]  # fmt: skip
        say(quiet, printable_lines("\n".join(lines)))
    if not all(g.report is not None and g.report["quality_pass"] for g in graded):
        raise typer.Exit(1)
