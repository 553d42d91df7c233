"""`s8f-duck leaderboard`: the runs compared, as a table, JSON, CSV or a page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from s8f_duck.cli.app import STDOUT, Quiet, TableFormat, Verbose, guarded, say
from s8f_duck.safety.progress import Progress


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
        typer.Option(metavar="RUN_A RUN_B", help="Print only the comparison of two runs (ids, or names; a name with "
                          "runs on several corpora or splits stands for the one on the other's): the paired bootstrap "
                          "difference per score; both must be graded on the same corpus and split."),
    ] = None,  # fmt: skip
    rank_by: Annotated[
        str,
        typer.Option(help="The score ranked by: derived (the mean F1 of references, duplicate targets and scope "
                          "contradictions), a slice (state, labels, references, duplicate_targets, "
                          "scope_contradictions), all-facts, adjudicated, or an adjudicated field."),
    ] = "derived",  # fmt: skip
    min_n: Annotated[
        int,
        typer.Option(help="A figure resting on fewer gold facts (or records) than this is marked too few to rank on."),
    ] = 10,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples of the graded records.")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the resamples: the same seed gives the same intervals.")] = 0,
    min_label_facts: Annotated[
        int, typer.Option(help="Score each label with at least this many gold records among the graded ones.")
    ] = 5,
    latest: Annotated[
        bool, typer.Option("--latest", help="Only the newest run of each name (an earlier run of a name left out).")
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Compare the recorded runs (bootstrap intervals).

    Runs are ranked on --rank-by (by default the mean F1 of the derived slices; state and
    labels, which a candidate can copy, are input checks), runs the paired bootstrap does
    not separate sharing a rank, with separability per score. Per run its outcome, grade
    and cost; per slice and frequent label precision, recall and F1 with 95% bootstrap
    intervals over the graded records and their n; each aggregate exact or not.

    \b
    Exit status:
      0  compared
      2  the database or a --compare run cannot be used
    """
    from s8f_duck.board import leaderboard as board
    from s8f_duck.board import page as leaderboard_page
    from s8f_duck.board import text as leaderboard_text
    from s8f_duck.corpus.artifacts import Outputs, write_text

    progress = Progress.for_options("leaderboard", quiet=quiet, verbose=verbose)

    def go() -> dict[str, object]:
        request = board.Request(runs, resamples, seed, min_label_facts, tuple(compare) if compare else None, rank_by,
                                min_n, latest=latest)
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

    document = guarded("leaderboard", go)
    progress.done()
    chosen = format or (None if html is not None else TableFormat.table)
    if chosen is None:
        graded = sum(1 for run in document["runs"] if run["graded_records"] is not None)
        where = "standard output" if html == STDOUT else html
        say(quiet, f"wrote {where}: {len(document['runs'])} runs, {graded} graded ({resamples} resamples, seed {seed})",
             to_stderr=html == STDOUT)  # fmt: skip
    else:
        render = {"table": leaderboard_text.to_table, "json": leaderboard_text.to_json, "csv": leaderboard_text.to_csv}
        print(render[chosen.value](document).rstrip("\n"), file=sys.stderr if html == STDOUT else sys.stdout)
