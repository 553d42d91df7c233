"""Grading a submission against an answer bundle (SPEC §8): load, then run sql/grade/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from . import bundle
from .steps import GRADE_STEPS, register, rows, run_steps

CORE_FIELDS = (
    "schema",
    "corpus_sha256",
    "test_records",
    "exact_records",
    "false_positive_facts",
    "false_negative_facts",
    "aggregate_errors",
    "citation_errors",
    "quality_pass",
)


def grade_database(answers_path: Path, submission_path: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory database holding both documents and every grade table."""
    answers_corpus, gold = bundle.load_document(answers_path, expect_schema=bundle.ANSWERS_SCHEMA)
    submitted_corpus, submitted = bundle.load_document(submission_path, expect_schema=None)
    con = duckdb.connect()
    register(con, gold)
    register(con, submitted, prefix="submitted_")
    con.execute(
        "CREATE TABLE grade_binding AS SELECT ? AS answers_corpus_sha256, ? AS submitted_corpus_sha256",
        [answers_corpus, submitted_corpus],
    )
    run_steps(con, GRADE_STEPS)
    return con


def core_report(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The reference-compatible grade (`fak-microcontext-grade/1`), fields in order."""
    row = rows(con, "SELECT * FROM grade")[0]
    return {field: row[field] for field in CORE_FIELDS}
