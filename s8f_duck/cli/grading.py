"""`s8f-duck grade`: a submission graded against an answer bundle."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from s8f_duck.cli.app import STDOUT, GradeFormat, Quiet, Split, Verbose, guarded, say
from s8f_duck.safety.progress import Progress


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
    semantic: Annotated[
        Path | None,
        typer.Option(help="Also grade the submission's answers to the rubric (its semantic member) against this "
                          "semantic answer bundle (adjudicate gold): per field coverage, accuracy and macro-F1 "
                          "with intervals, beside the adjudicators' own agreement."),  # fmt: skip
    ] = None,
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
    from s8f_duck.grading import grade as grading
    from s8f_duck.reading.gojson import dumps

    progress = Progress.for_options("grade", quiet=quiet, verbose=verbose)
    to_stdout = output == STDOUT

    def go() -> dict:
        progress.step("grade the submission")
        report = grading.grade_to(answers, submission, None if to_stdout else output, split.value, semantic)
        progress.done()
        return report

    report = guarded("grade", go)
    if to_stdout:
        sys.stdout.write(dumps(report))
        sys.stdout.flush()
    rendered = {"summary": grading.summary, "table": grading.table, "json": lambda r: dumps(r).rstrip()}
    say(quiet and format == GradeFormat.summary, rendered[format.value](report), to_stderr=to_stdout)
    if not report["corpus_bound"]:
        print(
            f"s8f-duck grade: the submission is bound to corpus {report['submission_corpus_sha256']!r}, "
            f"but the answers are for corpus {report['corpus_sha256']}: not graded (all-zero core report)",
            file=sys.stderr,
        )
    if not report["quality_pass"]:
        raise typer.Exit(1)
