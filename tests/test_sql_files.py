"""The SQL files parse, and each step creates the table it is named for."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from s8f_duck.pipeline import steps
from s8f_duck.reading import load, rest_dumps

ALL_STEPS = sorted(
    {
        *steps.FREEZE_STEPS, *steps.BESIDE_PUBLIC_STEPS, *steps.LEAK_CHECK_STEPS, *steps.GRADE_STEPS, *steps.BASELINE_STEPS,
        *steps.LEADERBOARD_STEPS, *steps.PACKET_STEPS, *steps.AGREEMENT_STEPS, *steps.GOLD_STEPS,
        *steps.SEMANTIC_LEAK_CHECK_STEPS, *steps.SEMANTIC_GRADE_STEPS, *steps.LEADERBOARD_SEMANTIC_STEPS,
        *steps.WINDOW_DATE_STEPS, *steps.WINDOW_STEPS, *steps.WINDOW_SEMANTIC_STEPS, *steps.OLDER_SPLITS_STEPS,
        *steps.KEPT_FREEZE_STEPS,
        *steps.LEFT_OUT_STEPS, *steps.KEPT_REPORT_STEPS,
        *steps.LEADERBOARD_CLOCK_STEPS, *steps.GROWN_PACKET_STEPS, *steps.GROWN_PACKET_RECORD_STEPS,
        *steps.LEADERBOARD_RANK_STEPS, *steps.SERVICE_SEMANTIC_STEPS, *steps.LEADERBOARD_GOLD_STEPS,
        *load.RAW_STEPS, *load.PUBLIC_STEPS, *load.BUNDLE_STEPS, *load.SUBMISSION_STEPS, *rest_dumps.REST_STEPS,
        "raw/raw_fields", "raw/decoded/raw_fields", "public/public_document", "public/public_decoding",
        "public/split/public_records", "raw/parts/raw_fields", "bundle/split/bundle_items",
        "public/decoded/public_document", "bundle/bundle_document", "bundle/bundle_decoding",
        "bundle/decoded/bundle_document", "bundle/typed/bundle_answers",
    }
)  # fmt: skip
# Steps that append to a table of the attached runs database: they create it when missing,
# then insert the run's rows.
APPENDING_STEPS = steps.RUN_RECORD_STEPS
APPENDING_SCHEMAS = {**dict.fromkeys(steps.RUN_RECORD_STEPS, "runs"), **dict.fromkeys(steps.SERVICE_STEPS, "service"),
                     **dict.fromkeys(steps.CLOCK_RECORD_STEPS, "runs")}


@pytest.mark.parametrize("path", steps.all_sql_files(), ids=lambda p: str(p.relative_to(steps.SQL_DIR)))
def test_sql_file_parses_as_duckdb(path: Path) -> None:
    statements = sqlglot.parse(path.read_text(encoding="utf-8"), read="duckdb", error_level=sqlglot.ErrorLevel.RAISE)
    assert statements and all(s is not None for s in statements)


@pytest.mark.parametrize("step", APPENDING_SCHEMAS)
def test_appending_step_creates_and_fills_the_table_it_is_named_for(step: str) -> None:
    create, insert = sqlglot.parse(steps.sql_path(step).read_text(encoding="utf-8"), read="duckdb")
    assert isinstance(create, exp.Create) and isinstance(insert, exp.Insert)
    for statement in (create, insert):
        table = statement.this.find(exp.Table)
        assert (table.db, table.name) == (APPENDING_SCHEMAS[step], Path(step).name)


def test_ungraded_step_makes_every_grade_table_the_run_record_reads() -> None:
    """runs/ungraded stands in for the grade of a run that was not graded, and
    runs/no_semantic for the semantic grade of a run without one: together they make each
    table of the grade that the appending steps read, and nothing else."""
    made = {s.this.find(exp.Table).name for step in ("runs/ungraded", *steps.NO_SEMANTIC_STEPS)
            for s in sqlglot.parse(steps.sql_path(step).read_text(), read="duckdb")}  # fmt: skip
    read = {
        t.name
        for step in APPENDING_STEPS
        for t in sqlglot.parse(steps.sql_path(step).read_text(encoding="utf-8"), read="duckdb")[1].find_all(exp.Table)
    }
    assert made == read - {"run_meta", "run_request_log"} - {Path(s).name for s in APPENDING_STEPS}


@pytest.mark.parametrize("step", steps.MACRO_STEPS)
def test_macro_file_creates_macros_and_then_says_so(step: str) -> None:
    """Each file of macros creates macros only, then sets the variable by which run_steps
    knows it has run on the connection."""
    con = steps.connect()
    steps.run_steps(con, ["macros"] if step != "macros/grading" else [step])
    *creates, last = con.extract_statements(steps.sql_path(step).read_text(encoding="utf-8"))
    assert creates and all(c.query.split("CREATE OR REPLACE ")[1].startswith("MACRO ") for c in creates)
    assert last.query.strip().endswith(f"SET VARIABLE s8f_duck_macros_{Path(step).name} = true;")
    assert step in steps.macros_created(con)


@pytest.mark.parametrize(
    "step", [s for s in (*ALL_STEPS, *steps.SERVICE_LEADERBOARD_STEPS) if s != "macros" and s not in steps.MACRO_STEPS]
)
def test_step_creates_the_table_it_is_named_for(step: str) -> None:
    *_, statement = sqlglot.parse(steps.sql_path(step).read_text(encoding="utf-8"), read="duckdb")
    assert isinstance(statement, exp.Create)
    assert statement.this.find(exp.Table).name == Path(step).name


def test_every_sql_file_is_run_by_some_command() -> None:
    used = {
        steps.sql_path(step)
        for step in (
            *ALL_STEPS, *APPENDING_SCHEMAS, *steps.UNGRADED_STEPS, *steps.NO_SEMANTIC_STEPS, *steps.SERVICE_LEADERBOARD_STEPS,
            *steps.MACRO_STEPS, *steps.LEADERBOARD_NO_SEMANTIC_STEPS, *steps.LEADERBOARD_NO_GOLD_STEPS,
            *steps.RUNS_MIGRATION_STEPS, *steps.NO_MISSED_FACTS_STEPS, *steps.SERVICE_BINDING_STEPS,
        )
    }
    assert set(steps.all_sql_files()) <= used


def test_every_sql_directory_is_installed_with_the_package() -> None:
    """pyproject.toml lists each directory of sql/ as a package, so that `pip install .`
    (not only an editable install) carries every SQL file (steps.SQL_DIR)."""
    import tomllib

    config = tomllib.loads((steps.SQL_DIR.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    directories = {steps.SQL_DIR, *(d for d in steps.SQL_DIR.rglob("*") if d.is_dir() and d.name != "__pycache__")}
    wanted = {".".join(("s8f_duck", "sql", *d.relative_to(steps.SQL_DIR).parts)) for d in directories}
    assert wanted <= set(config["packages"])
    assert config["package-dir"] == {"s8f_duck.sql": "sql"}
