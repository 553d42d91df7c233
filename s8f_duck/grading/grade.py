"""Grading a submission against an answer bundle (docs/format.md §8): load, then run sql/grade/."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import duckdb

from s8f_duck.pipeline.steps import (
    GRADE_FACT_VIEWS,
    GRADE_STEPS,
    ONE_THREAD_BYTES,
    connect,
    macros_created,
    mark_macros,
    rows,
    run_steps,
)
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import BUNDLE_TABLES, load_bundle
from s8f_duck.reading.scan import file_sha256
from s8f_duck.reading.schemas import ANSWERS_SCHEMA
from s8f_duck.safety import arguments
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.writers import write_text

CORE_TYPES = {  # the reference-compatible core grade's fields, in order, as SQL types
    "schema": "VARCHAR",
    "corpus_sha256": "VARCHAR",
    "test_records": "BIGINT",
    "exact_records": "BIGINT",
    "false_positive_facts": "BIGINT",
    "false_negative_facts": "BIGINT",
    "aggregate_errors": "BIGINT",
    "citation_errors": "BIGINT",
    "quality_pass": "BOOLEAN",
}
CORE_FIELDS = tuple(CORE_TYPES)
SPLITS = ("test", "tune", "train")  # test is the held-out grade; tune and train are for tuning


def grade_database(
    answers_path: Path,
    submission_path: Path,
    con: duckdb.DuckDBPyConnection | None = None,
    split: str = "test",
) -> duckdb.DuckDBPyConnection:
    """A database holding both documents and every grade table (a new in-memory one, or
    the given connection's current schema). split is the split whose records are compared
    (sql/macros/grading.sql: graded_split); only test compares the corpus-wide aggregates."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    con = con or connect()
    con.execute("SET VARIABLE s8f_graded_split = ?", [split])
    if _same_file(answers_path, submission_path):  # the same bytes read twice give the same tables
        answers_corpus = submitted_corpus = load_bundle(con, answers_path, "", ANSWERS_SCHEMA)
        submitted = '"{name}"'
    else:  # read both at once: parsing a JSON document keeps one core busy
        (database,) = con.execute("SELECT current_database()").fetchall()[0]
        apart = f'"{database}".submission'
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {apart}")
        with ThreadPoolExecutor(1) as pool:
            submission = pool.submit(_load_apart, con.cursor(), submission_path, apart)
            try:
                answers_corpus = load_bundle(con, answers_path, "", ANSWERS_SCHEMA)
            finally:
                submitted_corpus = submission.result()
        submitted = apart + '."submitted_{name}"'
    _compare(con, answers_corpus, submitted_corpus, GRADE_STEPS, submitted)
    return con


def _compare(
    con: duckdb.DuckDBPyConnection,
    answers_corpus: str,
    submitted_corpus: str | None,
    steps: list[str] | tuple[str, ...],
    submitted: str | None = None,
) -> None:
    """The grade tables, from the answers' tables and the submission's `submitted_{name}`
    (views of the tables `submitted` names, when it is given), bound to both digests."""
    if submitted is not None:
        for name in BUNDLE_TABLES:
            con.execute(f'CREATE OR REPLACE VIEW "submitted_{name}" AS SELECT * FROM {submitted.format(name=name)}')
    con.execute(
        "CREATE OR REPLACE TABLE grade_binding AS SELECT ? AS answers_corpus_sha256, ? AS submitted_corpus_sha256",
        [answers_corpus, submitted_corpus],
    )
    run_steps(con, steps)


def _load_apart(own: duckdb.DuckDBPyConnection, path: Path, schema: str) -> str:
    """load_bundle with the `submitted_` prefix on a connection of its own (closed after),
    into an existing schema of its own (the loader's scratch tables have fixed names)."""
    with own:
        own.execute(f"USE {schema}")
        return load_bundle(own, path, "submitted_", None)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


@contextmanager
def separate_schema(con: duckdb.DuckDBPyConnection, schema: str) -> Iterator[None]:
    """Create tables in a schema of their own (dropped afterwards) within a connection,
    so a grade can run beside the tables of the same names in the current schema."""
    database, current, path = con.execute(
        "SELECT current_database(), current_schema(), current_setting('search_path')"
    ).fetchall()[0]
    con.execute(f'CREATE SCHEMA "{database}"."{schema}"')
    con.execute(f'USE "{database}"."{schema}"')
    con.execute(f"SET search_path = '{database}.{schema},{database}.{current}'")
    try:
        yield
    finally:
        con.execute(f'USE "{database}"."{current}"')
        if path:
            con.execute("SET search_path = ?", [path])
        else:
            con.execute("RESET search_path")
        con.execute(f'DROP SCHEMA "{database}"."{schema}" CASCADE')


def core_report(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The reference-compatible grade (`fak-microcontext-grade/1`), fields in order."""
    row = rows(con, "SELECT * FROM grade")[0]
    return {field: row[field] for field in CORE_FIELDS}


def full_report(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The core grade, then (beside it, never instead) the per-slice breakdown."""
    report = core_report(con)
    binding = rows(con, "SELECT * FROM grade_binding")[0]
    records = rows(
        con,
        "SELECT count(*) FILTER (WHERE NOT submitted) AS missing_from_submission, "
        "coalesce(list(id) FILTER (WHERE NOT exact), [])[1:20] AS first_inexact_records FROM record_results",
    )[0]
    citations = rows(con, "SELECT count(*) AS count, coalesce(list({'position': pos, 'id': id, 'reason': reason} "
                          "ORDER BY pos), [])[1:20] AS first FROM citation_errors")[0]  # fmt: skip
    report["corpus_bound"] = rows(con, "SELECT corpus_bound FROM grade")[0]["corpus_bound"]
    report["submission_corpus_sha256"] = binding["submitted_corpus_sha256"]
    split = rows(con, "SELECT graded_split() AS split")[0]["split"]
    if split != "test":  # the held-out grade's output stays as it always was
        report["graded_split"] = split
        report["aggregates_graded"] = False
    report["breakdown"] = {
        "records": records,
        "slices": rows(con, "SELECT * FROM slice_breakdown"),
        "aggregates": rows(con, "SELECT * FROM aggregate_breakdown"),
        "citation_errors": citations,
    }
    return report


class Grader:
    """An answer bundle read once, then graded against any number of submissions: what a
    long-running process (`s8f-duck serve`) keeps, and what the command uses for its one
    grade. Each grade is a GradeSession: a cursor of its own, in a schema of its own (the
    bundle's tables stay in the connection's main schema), so grades may run on several
    threads at once and a grade pays only for its submission and the diff queries."""

    def __init__(self, answers_path: Path, *, load: bool = True, input_bytes: int | None = None) -> None:
        """input_bytes: the largest input expected (by default the answer bundle's size);
        below ONE_THREAD_BYTES DuckDB works on one thread, where a second costs more than
        it saves (the S8f grade: about 10% less time), and grades at once use the cores."""
        self.answers_path = answers_path
        if input_bytes is None:
            input_bytes = answers_path.stat().st_size if answers_path.is_file() else 0
        self.con = connect(threads=1 if input_bytes < ONE_THREAD_BYTES else None)
        run_steps(self.con, ["macros/grading"])
        self._macros = macros_created(self.con)  # (read here: sessions must not use self.con unlocked)
        (self._database,) = self.con.execute("SELECT current_database()").fetchall()[0]
        self.corpus_sha256: str | None = None
        self._sessions = itertools.count()
        self._lock = threading.Lock()  # a DuckDB connection refuses a second call meanwhile
        if load:
            self.load_answers()

    def load_answers(self) -> str:
        """Read the answer bundle (once); return the corpus digest it is bound to."""
        with self._lock:
            if self.corpus_sha256 is None:
                self.corpus_sha256 = load_bundle(self.con, self.answers_path, "", ANSWERS_SCHEMA)
            return self.corpus_sha256

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def session(self, split: str = "test") -> Iterator[GradeSession]:
        """One grade over a split, in a schema of its own (dropped afterwards)."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
        with self._lock:
            own = self.con.cursor()
            name = f"grade_{next(self._sessions)}"
        schema = f'"{self._database}"."{name}"'
        own.execute(f"CREATE SCHEMA {schema}")
        try:
            own.execute(f"USE {schema}")
            own.execute(f"SET search_path = '{self._database}.{name},{self._database}.main'")
            mark_macros(own, self._macros)  # those of the main schema
            own.execute("SET VARIABLE s8f_graded_split = ?", [split])
            yield GradeSession(self, own)
        finally:
            try:
                own.execute(f"DROP SCHEMA {schema} CASCADE")
            finally:
                own.close()

    def grade(self, submission_path: Path, split: str = "test") -> dict[str, Any]:
        """The full report of a submission file over a split."""
        with self.session(split) as session:
            session.load(submission_path)
            session.compare()
            return session.report()


class GradeSession:
    """One submission against a Grader's answers: load, compare (sql/grade/), report."""

    def __init__(self, grader: Grader, con: duckdb.DuckDBPyConnection) -> None:
        self.grader, self.con = grader, con
        self.submitted_corpus: str | None = None
        self._same_as_answers = False

    def load(self, submission_path: Path) -> None:
        """Read the submission as tables `submitted_{name}` (the answer bundle itself:
        its own tables, read once)."""
        if _same_file(self.grader.answers_path, submission_path):
            self._same_as_answers = True
        else:
            self.submitted_corpus = load_bundle(self.con, submission_path, "submitted_", None)

    def compare(self) -> None:
        """The grade tables (steps.GRADE_STEPS, but for the views only a run record reads)."""
        answers_corpus = self.grader.load_answers()
        submitted = None
        if self._same_as_answers:  # the same bytes read twice give the same tables
            self.submitted_corpus, submitted = answers_corpus, 'main."{name}"'
        steps = [step for step in GRADE_STEPS if step not in GRADE_FACT_VIEWS]
        _compare(self.con, answers_corpus, self.submitted_corpus, steps, submitted)

    def report(self) -> dict[str, Any]:
        return full_report(self.con)


def grade(answers_path: Path, submission_path: Path, split: str = "test") -> dict[str, Any]:
    """Grade a submission file against an answer bundle file, over the given split: both
    read at once (parsing a JSON document keeps one core busy)."""
    sizes = [path.stat().st_size if path.is_file() else 0 for path in (answers_path, submission_path)]
    with Grader(answers_path, load=False, input_bytes=max(sizes)) as grader, grader.session(split) as session:
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(session.load, submission_path)
            try:
                grader.load_answers()
            finally:
                reading.result()  # (of two unusable files, the submission is named, as before)
        session.compare()
        return session.report()


def grade_to(
    answers_path: Path, submission_path: Path, output_path: Path | None, split: str = "test",
    semantic_path: Path | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Grade over a split (and on the semantic bundle's gold, if given), and write the full
    report to output_path, if given (all or nothing); return it."""
    arguments.check({"--answers": answers_path, "--submission": submission_path, "--semantic": semantic_path},
                    {"--output": output_path})  # fmt: skip
    with Outputs([output_path]) as outputs:
        report = grade(answers_path, submission_path, split)
        if semantic_path is not None:
            from s8f_duck.grading import semantic  # here: pyarrow takes 0.14 s to import

            report["semantic"] = semantic.semantic_grade(semantic_path, submission_path, split,
                                                         answers_sha256=file_sha256(answers_path))  # fmt: skip
        if output_path is not None:
            write_text(outputs.temp_for(output_path), dumps(report))
            outputs.commit()
    return report


@dataclass(frozen=True)
class Graded:
    """One submission of a batch: its grade, or why it could not be graded."""

    submission: Path
    report: dict[str, Any] | None
    error: str | None = None


def grade_many(
    answers_path: Path, submission_paths: list[Path], split: str = "test", semantic_path: Path | None = None
) -> list[Graded]:
    """Grade every submission against the answer bundle, read once: each grade the one its
    submission gets alone; an unusable submission is reported for itself and the others
    are still graded. (Each is compared in a session of its own: one pass of the diff
    queries per submission.)"""
    from s8f_duck.grading import semantic as semantic_grading
    from s8f_duck.safety.errors import UnusableInput

    arguments.check({"--answers": answers_path, "--semantic": semantic_path,
                     **{f"SUBMISSION {n + 1}": p for n, p in enumerate(submission_paths)}})  # fmt: skip
    answers_sha256 = file_sha256(answers_path)
    if semantic_path is not None:
        semantic_grading.read_semantic(semantic_path, answers_sha256)  # refused once, before any grade
    graded = []
    with Grader(answers_path) as grader:
        for path in submission_paths:
            try:
                report = grader.grade(path, split)
                if semantic_path is not None:
                    report["semantic"] = semantic_grading.semantic_grade(semantic_path, path, split, answers_sha256)
                graded.append(Graded(path, report))
            except (UnusableInput, duckdb.OutOfMemoryException, MemoryError, RecursionError) as exc:
                graded.append(Graded(path, None, str(exc) or type(exc).__name__))
    return graded


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _entry(value: Any) -> str:
    return "(none)" if value is None else str(value)


def summary(report: dict[str, Any]) -> str:
    """One line: the verdict and the core figures."""
    verdict = "PASS" if report["quality_pass"] else "FAIL"
    split = report.get("graded_split", "test")
    line = (
        f"{verdict}: {report['exact_records']}/{report['test_records']} {split} records exact; "
        f"{report['false_positive_facts']} false positive and "
        f"{_count(report['false_negative_facts'], 'false negative fact')}, "
        f"{_count(report['aggregate_errors'], 'aggregate error')}, {_count(report['citation_errors'], 'citation error')}"
    )
    if not report.get("aggregates_graded", True):
        line += f" (aggregates are corpus-wide and graded on test only, not on {split})"
    if "semantic" not in report:
        return line
    from s8f_duck.grading import semantic

    return "\n".join([line, *semantic.summary_lines(report["semantic"])])


def table(report: dict[str, Any]) -> str:
    """The breakdown as a plain-text table for the terminal."""
    lines = [summary(report), ""]
    head = f"{'slice':<22}{'gold':>7}{'sent':>7}{'FP':>6}{'FN':>6}{'prec':>8}{'recall':>8}{'records':>9}  first records with errors"
    lines.append(head)
    for s in report["breakdown"]["slices"]:
        lines.append(
            f"{s['slice']:<22}{s['gold_facts']:>7}{s['submitted_facts']:>7}{s['false_positive_facts']:>6}"
            f"{s['false_negative_facts']:>6}{_fraction(s['precision']):>8}{_fraction(s['recall']):>8}"
            f"{s['records_with_errors']:>9}  {' '.join(s['first_records_with_errors'][:6])}"
        )
    lines += ["", f"{'aggregate':<34}{'exact':>6}{'diffs':>7}  first differences (entry: gold / submitted)"]
    for a in report["breakdown"]["aggregates"]:
        diffs = "; ".join(f"{d['entry']}: {_entry(d['gold'])} / {_entry(d['submitted'])}" for d in a["first_differences"][:4])
        lines.append(f"{a['aggregate']:<34}{'yes' if a['exact'] else 'NO':>6}{a['differences']:>7}  {diffs}")
    cites = report["breakdown"]["citation_errors"]
    if cites["count"]:
        first = "; ".join(f"#{c['position']} {c['id']!r} ({c['reason']})" for c in cites["first"][:6])
        lines += ["", f"citation errors: {cites['count']}: {first}"]
    missing = report["breakdown"]["records"]["missing_from_submission"]
    if missing:
        lines += ["", f"test records missing from the submission: {missing}"]
    if "semantic" in report:
        from s8f_duck.grading import semantic

        lines += ["", *semantic.table_lines(report["semantic"])]
    return "\n".join(lines)


def batch_table(graded: list[Graded]) -> str:
    """A row per submission of a batch: its verdict and core counts, or why it was not graded."""
    head = f"{'submission':<40}{'verdict':>9}{'exact':>13}{'FP':>8}{'FN':>8}{'agg':>5}{'cit':>5}"
    lines = [head]
    for g in graded:
        name = str(g.submission)[-39:]
        if g.report is None:
            lines.append(f"{name:<40}{'UNUSABLE':>9}  {g.error}")
            continue
        r = g.report
        verdict = "PASS" if r["quality_pass"] else "FAIL"
        exact = f"{r['exact_records']}/{r['test_records']}"
        lines.append(f"{name:<40}{verdict:>9}{exact:>13}{r['false_positive_facts']:>8}{r['false_negative_facts']:>8}"
                     f"{r['aggregate_errors']:>5}{r['citation_errors']:>5}")  # fmt: skip
    return "\n".join(lines)
