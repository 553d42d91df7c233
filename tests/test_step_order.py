"""The step lists run no SQL file before the files that make what it reads.

Each file names the tables it reads; sqlglot lists them (docs/architecture.md, "The SQL
files"). A table that no step of a sequence makes is an input of that sequence (loaded from
a file, or made in Python: `redactions`, `oracle_grade`, `run_meta`, ...), so only the order
of the steps among themselves is checked, which is what a hand-written list can get wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from s8f_duck.pipeline import steps
from s8f_duck.reading import load

# What each command runs, step list after step list, in the order it runs them.
SEQUENCES: dict[str, tuple[str, ...]] = {
    "freeze": (*steps.FREEZE_STEPS, *steps.BESIDE_PUBLIC_STEPS, *steps.LEAK_CHECK_STEPS),
    "explore": (*steps.FREEZE_STEPS, *steps.BESIDE_PUBLIC_STEPS),
    "baseline, verify": steps.BASELINE_STEPS,
    "grade, then a run's record": (
        *steps.GRADE_STEPS, *steps.NO_SEMANTIC_STEPS, *steps.RUN_RECORD_STEPS, *steps.RUNS_MIGRATION_STEPS,
    ),
    "an ungraded run's record": (*steps.UNGRADED_STEPS, *steps.NO_SEMANTIC_STEPS, *steps.RUN_RECORD_STEPS),
    "a run's record with its semantic grade": (*steps.GRADE_STEPS, *steps.SEMANTIC_GRADE_STEPS, *steps.RUN_RECORD_STEPS),
    "leaderboard": (*steps.LEADERBOARD_STEPS[:1], *steps.LEADERBOARD_GOLD_STEPS, *steps.LEADERBOARD_STEPS[1:],
                    *steps.LEADERBOARD_SEMANTIC_STEPS, *steps.LEADERBOARD_RANK_STEPS),
    "leaderboard of a runs database written before the gold was recorded": (
        *steps.LEADERBOARD_STEPS[:1], *steps.LEADERBOARD_NO_GOLD_STEPS, *steps.LEADERBOARD_STEPS[1:],
        *steps.LEADERBOARD_SEMANTIC_STEPS, *steps.LEADERBOARD_RANK_STEPS),
    "leaderboard without semantic grades": (*steps.LEADERBOARD_STEPS, *steps.LEADERBOARD_NO_SEMANTIC_STEPS,
                                            *steps.LEADERBOARD_RANK_STEPS),
    "leaderboard of a runs database without run_missed_facts": (
        *steps.NO_MISSED_FACTS_STEPS, *(s for s in steps.LEADERBOARD_STEPS if s != "leaderboard/missed_facts"),
        *steps.LEADERBOARD_NO_SEMANTIC_STEPS, *steps.LEADERBOARD_RANK_STEPS,
    ),
    "serve": (*steps.SERVICE_BINDING_STEPS, *steps.SERVICE_STEPS, *steps.SERVICE_LEADERBOARD_STEPS),
    "serve --semantic, at start": steps.SERVICE_SEMANTIC_STEPS,
    "facts": steps.FACT_STEPS,
    "adjudicate packet": steps.PACKET_STEPS,
    "adjudicate agree": steps.AGREEMENT_STEPS,
    "adjudicate gold": (*steps.GOLD_STEPS, *steps.SEMANTIC_LEAK_CHECK_STEPS),
    "grade --semantic": steps.SEMANTIC_GRADE_STEPS,
    "freeze --keep-splits": (*steps.OLDER_SPLITS_STEPS, *steps.KEPT_FREEZE_STEPS, *steps.KEPT_REPORT_STEPS,
                             *steps.BESIDE_PUBLIC_STEPS, *steps.LEAK_CHECK_STEPS),
    # (then KEPT_FREEZE_STEPS again, on the dump without them: raw_issues is made again)
    "freeze --keep-splits, records left out": (*steps.KEPT_SPLIT_STEPS, *steps.LEFT_OUT_STEPS),
    "grade --created-after": (*steps.WINDOW_DATE_STEPS, *steps.GRADE_STEPS, *steps.WINDOW_STEPS),
    "grade --created-after --semantic": (*steps.SEMANTIC_GRADE_STEPS, *steps.WINDOW_SEMANTIC_STEPS),
    "run --model-cutoff, runs --set-cutoff": (*steps.GRADE_STEPS, *steps.NO_SEMANTIC_STEPS, *steps.RUN_RECORD_STEPS,
                                              *steps.CLOCK_RECORD_STEPS),
    "leaderboard against the clock": (*steps.LEADERBOARD_STEPS, *steps.LEADERBOARD_CLOCK_STEPS),
    "adjudicate packet --extend / --where": (*steps.GROWN_PACKET_STEPS, *steps.GROWN_PACKET_RECORD_STEPS),
    "load a raw dump": load.RAW_STEPS,
    "load a public corpus": load.PUBLIC_STEPS,
    "load an answer bundle": load.BUNDLE_STEPS,
    "load submissions, then grade": (*load.SUBMISSION_STEPS, *steps.GRADE_STEPS),
}


@cache
def tables_of(step: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the tables a step's file makes, the tables it reads that it did not make itself)."""
    made: set[str] = set()
    read: set[str] = set()
    if step == "macros" or step in steps.MACRO_STEPS:
        return frozenset(), frozenset()
    for statement in sqlglot.parse(steps.sql_path(step).read_text(encoding="utf-8"), read="duckdb"):
        if statement is None:
            continue
        target = statement.this.find(exp.Table) if isinstance(statement, (exp.Create, exp.Insert)) else None
        ctes = {cte.alias_or_name for cte in statement.find_all(exp.CTE)}
        for table in statement.find_all(exp.Table):
            # a table function (read_json(...)) is not a table; nor is a CTE or the target itself
            if table is target or not isinstance(table.this, exp.Identifier) or table.name in ctes:
                continue
            if table.name not in made:
                read.add(table.name)
        if target is not None:
            made.add(target.name)
    return frozenset(made), frozenset(read)


def order_problems(sequence: Sequence[str]) -> list[str]:
    """Each table a step reads that the sequence makes only in a later step."""
    problems = []
    for at, step in enumerate(sequence):
        for table in sorted(tables_of(step)[1]):
            makers = [i for i, other in enumerate(sequence) if table in tables_of(other)[0]]
            if makers and makers[0] > at:
                problems.append(f"{step} reads {table} before {sequence[makers[0]]} makes it")
    return problems


@pytest.mark.parametrize("command", SEQUENCES)
def test_no_step_reads_a_table_before_the_step_that_makes_it(command: str) -> None:
    assert order_problems(SEQUENCES[command]) == []


def test_the_check_finds_a_step_run_before_what_it_reads() -> None:
    """The same check on deliberately wrong orders: each is found, naming the two steps."""
    freeze = list(steps.FREEZE_STEPS)
    freeze.remove("freeze/scrub_passes")
    freeze.insert(freeze.index("freeze/scrubbed_issues") + 1, "freeze/scrub_passes")
    assert order_problems(freeze) == ["freeze/scrubbed_issues reads scrub_passes before freeze/scrub_passes makes it"]
    assert "grade/grade reads record_results before grade/record_results makes it" in order_problems(
        steps.GRADE_STEPS[::-1]
    )
    assert order_problems(["facts/splits", "facts/components"]) == [
        "facts/splits reads components before facts/components makes it"
    ]


def test_the_files_name_what_they_read() -> None:
    """The check sees real dependencies (it cannot pass by finding none)."""
    assert tables_of("facts/splits") == ({"splits"}, {"components"})
    assert tables_of("grade/record_results")[1] == {"answer_pairs", "fact_errors"}
    assert "gold_facts" not in tables_of("runs/ungraded")[1]  # made by the file's own first statement


def test_steps_run_beside_each_other_share_nothing() -> None:
    """A step that run_steps runs on a second connection, while the steps named beside it
    run on the first, neither reads what they make nor makes what they read."""
    for step, alongside in steps.RUN_BESIDE.items():
        made, read = tables_of(step)
        for other in alongside:
            other_made, other_read = tables_of(other)
            assert not read & other_made, (step, other)
            assert not made & other_read, (step, other)
        for command, sequence in SEQUENCES.items():
            if step in sequence:
                at = sequence.index(step)
                assert tuple(sequence[at + 1 : at + 1 + len(alongside)]) == alongside, command


def test_every_step_list_is_checked() -> None:
    """A new list of steps in steps.py or load.py is part of some checked sequence."""
    checked = {step for sequence in SEQUENCES.values() for step in sequence}
    for module in (steps, load):
        for name, value in vars(module).items():
            if name.endswith("_STEPS") and name != "MACRO_STEPS":
                assert set(value) <= checked, f"{module.__name__}.{name}"


def test_every_sequence_names_real_files() -> None:
    for sequence in SEQUENCES.values():
        for step in sequence:
            assert step == "macros" or steps.sql_path(step).is_file(), step
            assert Path(step).name == step.rsplit("/", 1)[-1]
