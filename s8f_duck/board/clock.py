"""The leaderboard's clock (its `clock` member, sql/leaderboard/clock_*.sql) as text and
CSV rows: per run with a model cutoff, the primary score before and after it; per corpus
and split, each run's primary score by creation month."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SHOWN_MONTHS = 8  # months per row in the text table (each column 7 wide, the run's name 24)


def cutoff_section(board: dict[str, Any], grid: Callable[..., str], score: Callable[..., str],
                   signed: Callable[..., str]) -> str:  # fmt: skip
    """Before and after each run's model cutoff, with intervals and the paired difference."""
    body = [
        [_clip(c["name"], 20), _clip(c["model_cutoff"] or "", 20), c["records_before"], score(c["primary_before"]),
         c["records_after"], score(c["primary_after"]),
         signed(c["difference"], c["difference_low"], c["difference_high"])]
        for c in board["clock"]["cutoffs"]
    ]  # fmt: skip
    return ("Before and after each model's training cutoff: the primary score (mean F1 of references, duplicates "
            "and contradictions) on the records created before it and at or after it, and after less before "
            "(a drop after the cutoff suggests the model saw the older records; every interval: --format json "
            "or csv)\n"
            + grid(["run", "cutoff", "before", "primary", "after", "primary", "after - before [95%]"],
                   body, [False, False, True, True, True, True]))  # fmt: skip


def month_sections(board: dict[str, Any], grid: Callable[..., str], score: Callable[..., str],
                   title: Callable[[dict[str, Any], int], str]) -> list[str]:  # fmt: skip
    """Per corpus and split, a row per run: its primary score in each creation month."""
    sections = []
    for group in board["groups"]:
        points = [m for m in board["clock"]["months"] if m["group_id"] == group["group_id"]]
        if not points:
            continue
        every = sorted({m["month"] for m in points})
        months = every[-SHOWN_MONTHS:]  # within the table's width; every month: --format json or csv
        records = {m["month"]: m["records"] for m in points}
        runs = list(dict.fromkeys(m["name"] for m in points))
        cells = {(m["name"], m["month"]): m["primary_score"] for m in points}
        body = [["(records)", *(records[month] for month in months)]]
        body += [[_clip(name, 24), *(score(cells.get((name, month))) for month in months)] for name in runs]
        cut = f" (the last {len(months)} of {len(every)} months; all: --format json or csv)" * (months != every)
        sections.append(f"Primary score by creation month{cut}: {title(group, len(runs))}\n"
                        + grid(["run", *months], body, [False, *[True] * len(months)]))  # fmt: skip
    return sections


def csv_rows(board: dict[str, Any], put: Callable[..., None], runs: dict[str, dict[str, Any]]) -> None:
    """The clock's numbers as the CSV's rows (scope clock)."""
    for c in board.get("clock", {}).get("cutoffs", []):
        run = runs[c["run_id"]]
        put(run, "clock", "before", "records", c["records_before"])
        put(run, "clock", "before", "primary", c["primary_before"], c["primary_before_low"], c["primary_before_high"])
        put(run, "clock", "after", "records", c["records_after"])
        put(run, "clock", "after", "primary", c["primary_after"], c["primary_after_low"], c["primary_after_high"])
        put(run, "clock", "after-before", "primary_difference", c["difference"], c["difference_low"],
            c["difference_high"])  # fmt: skip
    for m in board.get("clock", {}).get("months", []):
        put(runs[m["run_id"]], "clock", m["month"], "records", m["records"])
        put(runs[m["run_id"]], "clock", m["month"], "primary", m["primary_score"])


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
