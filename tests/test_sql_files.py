"""The SQL files parse, and each step creates the table it is named for."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from s8f_duck import load, rest_dumps, steps

ALL_STEPS = sorted(
    {
        *steps.FREEZE_STEPS, *steps.BESIDE_PUBLIC_STEPS, *steps.LEAK_CHECK_STEPS, *steps.GRADE_STEPS, *steps.BASELINE_STEPS,
        *load.RAW_STEPS, *load.PUBLIC_STEPS, *load.BUNDLE_STEPS, *rest_dumps.REST_STEPS,
        "raw/raw_fields", "raw/decoded/raw_fields", "public/public_document", "public/public_decoding",
        "public/split/public_records", "raw/parts/raw_fields", "bundle/split/bundle_items",
        "public/decoded/public_document", "bundle/bundle_document", "bundle/bundle_decoding",
        "bundle/decoded/bundle_document",
    }
)  # fmt: skip


@pytest.mark.parametrize("path", steps.all_sql_files(), ids=lambda p: str(p.relative_to(steps.SQL_DIR)))
def test_sql_file_parses_as_duckdb(path: Path) -> None:
    statements = sqlglot.parse(path.read_text(encoding="utf-8"), read="duckdb", error_level=sqlglot.ErrorLevel.RAISE)
    assert statements and all(s is not None for s in statements)


@pytest.mark.parametrize("step", [s for s in ALL_STEPS if s != "macros"])
def test_step_creates_the_table_it_is_named_for(step: str) -> None:
    *_, statement = sqlglot.parse(steps.sql_path(step).read_text(encoding="utf-8"), read="duckdb")
    assert isinstance(statement, exp.Create)
    assert statement.this.find(exp.Table).name == Path(step).name


def test_every_sql_file_is_run_by_some_command() -> None:
    used = {steps.sql_path(step) for step in ALL_STEPS}
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
