"""The corpus as a database: explore, sql, Parquet, and the queries documented in docs/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from conftest import REPO, S8F_PUBLIC, S8F_RAW, S8F_SOURCE, needs_s8f, run_cli

pytestmark = needs_s8f
DOC = REPO / "docs" / "querying.md"
EXAMPLES = re.findall(r"```sql\n(.*?)\n```\n\n```text\n(.*?)\n```", DOC.read_text(encoding="utf-8"), re.S)


@pytest.fixture(scope="module")
def s8f_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("s8f-db")
    result = run_cli(
        "freeze", S8F_RAW, "--source", S8F_SOURCE, "--db", out / "corpus.duckdb", "--parquet", out / "public.parquet",
        "--public", out / "public.json", "--answers", out / "answers.json", "--report", out / "report.json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def test_docs_show_at_least_five_queries() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("query, shown", EXAMPLES, ids=[f"query{i + 1}" for i in range(len(EXAMPLES))])
def test_documented_query_prints_what_the_docs_show(s8f_db: Path, query: str, shown: str) -> None:
    result = run_cli("sql", "--db", s8f_db / "corpus.duckdb", query)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == shown


def test_explore_from_public_alone_builds_the_same_tables(s8f_db: Path, tmp_path: Path) -> None:
    result = run_cli("explore", "--public", S8F_PUBLIC, "--db", tmp_path / "e.duckdb", "--parquet", tmp_path / "e.parquet")
    assert result.returncode == 0, result.stderr
    tables = ("issues", "labels", "reference_edges", "duplicate_edges", "contradiction_cues", "components",
              "splits", "answers", "state_counts", "label_counts", "newest_issue_ids")  # fmt: skip
    with duckdb.connect(str(tmp_path / "e.duckdb"), read_only=True) as explored, duckdb.connect(
        str(s8f_db / "corpus.duckdb"), read_only=True
    ) as frozen:
        for table in tables:
            query = f"SELECT * EXCLUDE (rank) FROM {table}" if "issue_ids" in table else f"SELECT * FROM {table}"
            assert sorted(explored.execute(query).fetchall(), key=repr) == sorted(
                frozen.execute(query).fetchall(), key=repr
            ), table


def test_parquet_holds_the_public_records(s8f_db: Path) -> None:
    table = pq.read_table(s8f_db / "public.parquet")
    public = json.loads(S8F_PUBLIC.read_bytes())["records"]
    assert table.column_names == list(public[0])
    assert table.slice(0, 3).to_pylist() == public[:3]
    assert table.num_rows == 1000


TABLE = """\
┌─────────┬───────┐
│  split  │   n   │
│ varchar │ int64 │
├─────────┼───────┤
│ test    │   680 │
│ train   │   212 │
│ tune    │   108 │
└─────────┴───────┘
"""


@pytest.mark.parametrize(
    "fmt, expected",
    [
        ("table", TABLE),  # DuckDB's box, as its shell draws it
        ("csv", "split,n\ntest,680\ntrain,212\ntune,108\n"),
        ("json", '[\n\t{"split":"test","n":680},\n\t{"split":"train","n":212},\n\t{"split":"tune","n":108}\n]\n'),
    ],
)
def test_sql_formats_on_a_public_corpus(fmt: str, expected: str) -> None:
    result = run_cli("sql", "--public", S8F_PUBLIC, "--format", fmt,
                     "SELECT split, count(*) AS n FROM issues GROUP BY split ORDER BY split")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected


def test_sql_errors_exit_2(s8f_db: Path, tmp_path: Path) -> None:
    bad_query = run_cli("sql", "--db", s8f_db / "corpus.duckdb", "SELECT nope FROM issues")
    assert bad_query.returncode == 2 and "query failed" in bad_query.stderr
    no_db = run_cli("sql", "--db", tmp_path / "none.duckdb", "SELECT 1")
    assert no_db.returncode == 2 and "no such database file" in no_db.stderr
    both = run_cli("sql", "SELECT 1")
    assert both.returncode == 2 and "exactly one of --db" in both.stderr


def test_database_is_opened_read_only(s8f_db: Path) -> None:
    result = run_cli("sql", "--db", s8f_db / "corpus.duckdb", "DELETE FROM labels")
    assert result.returncode == 2 and "read-only" in result.stderr


def test_prompt_runs_statements_from_stdin(s8f_db: Path) -> None:
    import subprocess

    from conftest import CLI

    result = subprocess.run([str(CLI), "sql", "--db", str(s8f_db / "corpus.duckdb")], input="SELECT count(*)\nAS n FROM issues;\n",
                            capture_output=True, text=True, env={"PATH": "/nonexistent"}, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "│   n   │\n│ int64 │\n├───────┤\n│  1000 │" in result.stdout
