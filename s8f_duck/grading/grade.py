"""Grading a submission against an answer bundle (docs/format.md §8): load, then run sql/grade/."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import duckdb

from s8f_duck.grading.window import (
    Window,
    WindowDates,
    check_cutoff,
    semantic_member,
    window_dates,
    window_reports,
)
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
from s8f_duck.reading.load import BUNDLE_TABLES
from s8f_duck.reading.scan import file_sha256
from s8f_duck.reading.schemas import ANSWERS_SCHEMA
from s8f_duck.reading.submissions import SUBMISSION_ERRORS, load_answer_bundle, load_submissions
from s8f_duck.safety import arguments
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.printable import printable, printable_lines
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
    the given connection's current schema), the submission keyed 0. split is the split
    whose records are compared (sql/macros/grading.sql: graded_split); only test compares
    the corpus-wide aggregates."""
    _check_split(split)
    con = con or connect()
    con.execute("SET VARIABLE s8f_graded_split = ?", [split])
    if _same_file(answers_path, submission_path):  # the same bytes read twice give the same tables
        answers_corpus = load_answer_bundle(con, answers_path, ANSWERS_SCHEMA)
        _answers_as_submission(con, '"{name}"', answers_corpus)
    else:  # read both at once: parsing a JSON document keeps one core busy
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(_load_submissions_apart, con.cursor(), [submission_path], _current_schema(con))
            try:
                answers_corpus = load_answer_bundle(con, answers_path, ANSWERS_SCHEMA)
            finally:
                _raise_unusable(reading.result())
    _compare(con, answers_corpus, GRADE_STEPS)
    return con


def _current_schema(con: duckdb.DuckDBPyConnection) -> str:
    database, schema = con.execute("SELECT current_database(), current_schema()").fetchall()[0]
    return f'"{database}"."{schema}"'


def _load_submissions_apart(own: duckdb.DuckDBPyConnection, paths: list[Path], schema: str) -> list[str | BaseException]:
    """load_submissions on a connection of its own (closed after), into the given schema."""
    with own:
        own.execute(f"USE {schema}")
        return load_submissions(own, paths)


def _raise_unusable(loaded: list[str | BaseException]) -> None:
    for result in loaded:
        if isinstance(result, BaseException):
            raise result


def _answers_as_submission(con: duckdb.DuckDBPyConnection, tables: str, corpus: str) -> None:
    """The answer bundle's tables (`tables` names them) as submission 0's keyed tables."""
    for name in BUNDLE_TABLES:
        con.execute(f'CREATE OR REPLACE VIEW "submitted_{name}" AS SELECT 0::BIGINT AS submission, * '
                    f"FROM {tables.format(name=name)}")  # fmt: skip
    con.execute("CREATE OR REPLACE TABLE submitted_headers AS SELECT 0::BIGINT AS submission, ? AS corpus_sha256",
                [corpus])  # fmt: skip


def _compare(con: duckdb.DuckDBPyConnection, answers_corpus: str, steps: list[str] | tuple[str, ...]) -> None:
    """The grade tables of every submission loaded (keyed tables `submitted_{name}` and
    `submitted_headers`) against the answers' tables, each bound to both digests."""
    con.execute("SET VARIABLE s8f_answers_corpus = ?", [answers_corpus])
    run_steps(con, steps)


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")


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
    """The reference-compatible grade (`fak-microcontext-grade/1`) of the one submission
    graded, fields in order."""
    row = rows(con, "SELECT * FROM grade")[0]
    return {field: row[field] for field in CORE_FIELDS}


def _by_submission(con: duckdb.DuckDBPyConnection, query: str) -> dict[int, list[dict[str, Any]]]:
    """The rows of a query, without their `submission`, grouped by it (in their order)."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for row in rows(con, query):
        grouped.setdefault(row.pop("submission"), []).append(row)
    return grouped


def full_reports(con: duckdb.DuckDBPyConnection) -> dict[int, dict[str, Any]]:
    """Each graded submission's report: the core grade, then (beside it, never instead) the
    per-slice breakdown. A few queries for every submission at once."""
    split = rows(con, "SELECT graded_split() AS split")[0]["split"]
    binding = _by_submission(con, "SELECT submission, submitted_corpus_sha256 FROM grade_binding")
    records = _by_submission(
        con,
        "SELECT submission, count(*) FILTER (WHERE NOT submitted) AS missing_from_submission, "
        "coalesce(list(id ORDER BY id_number(id), id) FILTER (WHERE NOT exact), [])[1:20] AS first_inexact_records "
        "FROM record_results GROUP BY submission",
    )
    citations = _by_submission(con, "SELECT submission, count(*) AS count, coalesce(list({'position': pos, 'id': id, "
                                    "'reason': reason} ORDER BY pos), [])[1:20] AS first FROM citation_errors "
                                    "GROUP BY submission")  # fmt: skip
    slices = _by_submission(con, "SELECT * FROM slice_breakdown")
    wrong = _by_submission(con, "SELECT * FROM wrong_facts")
    aggregates = _by_submission(con, "SELECT * FROM aggregate_breakdown")
    reports = {}
    for submission, (row,) in _by_submission(con, "SELECT * FROM grade").items():
        # a tune or train grade names its records as the graded split's, not as test records
        report = {("graded_records" if field == "test_records" and split != "test" else field): row[field]
                  for field in CORE_FIELDS}  # fmt: skip
        report["corpus_bound"] = row["corpus_bound"]
        report["submission_corpus_sha256"] = binding[submission][0]["submitted_corpus_sha256"]
        if split != "test":  # the held-out grade's output stays as it always was
            report["graded_split"] = split
            report["aggregates_graded"] = False
        report["breakdown"] = {
            "records": records.get(submission, [{"missing_from_submission": 0, "first_inexact_records": []}])[0],
            "slices": slices[submission],
            "aggregates": aggregates[submission],
            "citation_errors": citations.get(submission, [{"count": 0, "first": []}])[0],
        }
        if split != "test":  # the tuning loop: which facts are wrong, not only which records
            report["breakdown"]["wrong_facts"] = wrong.get(submission, [{"count": 0, "first": []}])[0]
        reports[submission] = report
    return reports


def full_report(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The report of the one submission graded (grade_database)."""
    (report,) = full_reports(con).values()
    return report


class Grader:
    """An answer bundle read once, then graded against any number of submissions: what a
    long-running process (`s8f-duck serve`) keeps, and what the command uses for its
    grades. Each batch is a GradeSession: a cursor of its own, in a schema of its own (the
    bundle's tables stay in the connection's main schema), so batches may run on several
    threads at once; a batch pays for reading its submissions and one pass of the diff
    queries over all of them, keyed by submission."""

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
                self.corpus_sha256 = load_answer_bundle(self.con, self.answers_path, ANSWERS_SCHEMA)
            return self.corpus_sha256

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def session(self, split: str = "test") -> Iterator[GradeSession]:
        """One batch of grades over a split, in a schema of its own (dropped afterwards)."""
        _check_split(split)
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
        (graded,) = self.grade_many([submission_path], split)
        if graded.report is None:
            raise graded.exception
        return graded.report

    def grade_many(
        self, submission_paths: Sequence[Path], split: str = "test", window: WindowDates | None = None
    ) -> list[Graded]:
        """Each submission file's full report over a split, or why it is unusable: the files
        read at once and graded by one pass of the diff queries. A batch that fails as a
        whole (out of memory) is graded again one submission at a time, so that only the
        one that caused it is refused: whatever one submission's grade ends in is that
        submission's error, never its batch's."""
        try:
            with self.session(split) as session:
                session.load(submission_paths)
                session.compare()
                return session.graded(window)
        except Exception as exc:  # noqa: BLE001  (one submission's failure is its own)
            if len(submission_paths) == 1:
                return [Graded(submission_paths[0], None, exc)]
        return [graded for path in submission_paths for graded in self.grade_many([path], split, window)]


class GradeSession:
    """Submissions against a Grader's answers: load, compare (sql/grade/), report."""

    def __init__(self, grader: Grader, con: duckdb.DuckDBPyConnection) -> None:
        self.grader, self.con = grader, con
        self.paths: list[Path] = []
        self.loaded: list[str | BaseException] = []
        self._same_as_answers = False

    def load(self, submission_paths: Sequence[Path]) -> None:
        """Read the submissions as keyed tables `submitted_{name}` (the answer bundle alone:
        its own tables, read once)."""
        self.paths = list(submission_paths)
        if len(self.paths) == 1 and _same_file(self.grader.answers_path, self.paths[0]):
            self._same_as_answers = True
        else:
            self.loaded = load_submissions(self.con, self.paths)

    def compare(self) -> None:
        """The grade tables (steps.GRADE_STEPS, but for the views only a run record reads)."""
        answers_corpus = self.grader.load_answers()
        if self._same_as_answers:  # the same bytes read twice give the same tables
            _answers_as_submission(self.con, 'main."{name}"', answers_corpus)
            self.loaded = [answers_corpus]
        _compare(self.con, answers_corpus, [step for step in GRADE_STEPS if step not in GRADE_FACT_VIEWS])

    def graded(self, window: WindowDates | None = None) -> list[Graded]:
        """Each submission's report (with its `window` member, given a window read)."""
        reports = full_reports(self.con)
        if window is not None:
            for submission, member in window_reports(self.con, window).items():
                reports[submission]["window"] = member
        return [Graded(path, None, result) if isinstance(result, BaseException) else Graded(path, reports[n])
                for n, (path, result) in enumerate(zip(self.paths, self.loaded))]  # fmt: skip

    def report(self, window: WindowDates | None = None) -> dict[str, Any]:
        """The report of the one submission loaded."""
        (graded,) = self.graded(window)
        if graded.report is None:
            raise graded.exception
        return graded.report


def grade(
    answers_path: Path, submission_path: Path, split: str = "test", window: Window | None = None
) -> dict[str, Any]:
    """Grade a submission file against an answer bundle file, over the given split: both
    read at once (parsing a JSON document keeps one core busy); with a window, its member
    `window` after the rest."""
    sizes = [path.stat().st_size if path.is_file() else 0 for path in (answers_path, submission_path)]
    with Grader(answers_path, load=False, input_bytes=max(sizes)) as grader, grader.session(split) as session:
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(session.load, [submission_path])
            try:
                grader.load_answers()
            finally:
                reading.result()  # (of two unusable files, the submission is named, as before)
        _raise_unusable(session.loaded)
        session.compare()
        return session.report(None if window is None else window_dates(window, grader.corpus_sha256))


def grade_to(
    answers_path: Path, submission_path: Path, output_path: Path | None, split: str = "test",
    semantic_path: Path | None = None, window: Window | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Grade over a split (and on the semantic bundle's gold, if given; over a creation
    window, if given), and write the full report to output_path, if given (all or nothing);
    return it."""
    arguments.check({"--answers": answers_path, "--submission": submission_path, "--semantic": semantic_path,
                     "--public": window and window.public_path}, {"--output": output_path})  # fmt: skip
    if window is not None:
        check_cutoff(window.created_after)  # a bad date is refused before anything is read
    with Outputs([output_path]) as outputs:
        report = grade(answers_path, submission_path, split, window)
        if semantic_path is not None:
            from s8f_duck.grading import semantic  # here: pyarrow takes 0.14 s to import

            if window is None:
                report["semantic"] = semantic.semantic_grade(semantic_path, submission_path, split,
                                                             answers_sha256=file_sha256(answers_path))  # fmt: skip
            else:
                report["semantic"], report["window"]["semantic"] = _windowed_semantic(
                    semantic_path, submission_path, split, file_sha256(answers_path), window, report["corpus_sha256"])
        if output_path is not None:
            write_text(outputs.temp_for(output_path), dumps(report))
            outputs.commit()
    return report


def _windowed_semantic(
    semantic_path: Path, submission_path: Path, split: str, answers_sha256: str, window: Window, corpus_sha256: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The semantic grade, and its accuracy per field over the window's records."""
    from s8f_duck.grading import semantic

    with connect() as con:
        report = semantic.grade_into(con, semantic_path, submission_path, split, answers_sha256)
        return report, semantic_member(con, window_dates(window, corpus_sha256))


@dataclass(frozen=True)
class Graded:
    """One submission of a batch: its grade, or the error that made it unusable."""

    submission: Path
    report: dict[str, Any] | None
    exception: BaseException | None = None

    @property
    def error(self) -> str | None:
        return None if self.exception is None else (str(self.exception) or type(self.exception).__name__)


def grade_many(
    answers_path: Path, submission_paths: list[Path], split: str = "test", semantic_path: Path | None = None,
    window: Window | None = None,
) -> list[Graded]:  # fmt: skip
    """Grade every submission against the answer bundle, read once, by one pass of the
    diff queries over all of them: each grade the one its submission gets alone; an
    unusable submission is reported for itself and the others are still graded."""
    arguments.check({"--answers": answers_path, "--semantic": semantic_path,
                     "--public": window and window.public_path,
                     **{f"SUBMISSION {n + 1}": p for n, p in enumerate(submission_paths)}})  # fmt: skip
    if window is not None:
        check_cutoff(window.created_after)
    answers_sha256 = file_sha256(answers_path)
    if semantic_path is not None:
        from s8f_duck.grading import semantic as semantic_grading

        semantic_grading.read_semantic(semantic_path, answers_sha256)  # refused once, before any grade
    with Grader(answers_path) as grader:
        dates = None if window is None else window_dates(window, grader.load_answers())
        graded = grader.grade_many(submission_paths, split, dates)
    if semantic_path is None:
        return graded
    with_semantic = []
    for one in graded:
        if one.report is not None:
            try:
                if window is None:
                    one.report["semantic"] = semantic_grading.semantic_grade(semantic_path, one.submission, split,
                                                                             answers_sha256)  # fmt: skip
                else:
                    one.report["semantic"], one.report["window"]["semantic"] = _windowed_semantic(
                        semantic_path, one.submission, split, answers_sha256, window, one.report["corpus_sha256"])
            except SUBMISSION_ERRORS as exc:
                one = Graded(one.submission, None, exc)
        with_semantic.append(one)
    return with_semantic


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _entry(value: Any) -> str:
    return "(none)" if value is None else str(value)


def graded_records(report: dict[str, Any]) -> int:
    """The records graded: `test_records` in the held-out grade, `graded_records` in a tune or train one."""
    return report["test_records"] if "test_records" in report else report["graded_records"]


def summary(report: dict[str, Any]) -> str:
    """One line: the verdict and the core figures (or why nothing was graded)."""
    if not report.get("corpus_bound", True):
        sent = report.get("submission_corpus_sha256") or ""
        if not sent:
            return ("NOT GRADED: the file names no corpus (no corpus_sha256): is it a submission "
                    "(fak-microcontext-submission/1)? The core report is all zero")  # fmt: skip
        return (f"NOT GRADED: the submission is bound to corpus {printable(sent)}, but the answers are for corpus "
                f"{report['corpus_sha256']}; the core report is all zero")  # fmt: skip
    verdict = "PASS" if report["quality_pass"] else "FAIL"
    split = report.get("graded_split", "test")
    line = (
        f"{verdict}: {report['exact_records']}/{graded_records(report)} {split} records exact; "
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
    """The breakdown as a plain-text table for the terminal (for a submission bound to
    another corpus, only the line that says it was not graded)."""
    if not report.get("corpus_bound", True):
        return summary(report)
    lines = [summary(report), ""]
    head = f"{'slice':<22}{'gold':>7}{'sent':>7}{'FP':>6}{'FN':>6}{'prec':>8}{'recall':>8}{'records':>9}  first records with errors"
    lines.append(head)
    for s in report["breakdown"]["slices"]:
        lines.append(
            f"{s['slice']:<22}{s['gold_facts']:>7}{s['submitted_facts']:>7}{s['false_positive_facts']:>6}"
            f"{s['false_negative_facts']:>6}{_fraction(s['precision']):>8}{_fraction(s['recall']):>8}"
            f"{s['records_with_errors']:>9}  {' '.join(s['first_records_with_errors'][:6])}"
        )
    if not report.get("aggregates_graded", True):  # corpus-wide: compared on test only
        lines += ["", f"aggregates: not graded on {report.get('graded_split')} (they are corpus-wide; test grades them)"]
        aggregates = []
    else:
        lines += ["", f"{'aggregate':<34}{'exact':>6}{'diffs':>7}  first differences (entry: gold / submitted)"]
        aggregates = report["breakdown"]["aggregates"]
    for a in aggregates:
        diffs = "; ".join(f"{d['entry']}: {_entry(d['gold'])} / {_entry(d['submitted'])}" for d in a["first_differences"][:4])
        lines.append(f"{a['aggregate']:<34}{'yes' if a['exact'] else 'NO':>6}{a['differences']:>7}  {diffs}")
    cites = report["breakdown"]["citation_errors"]
    if cites["count"]:
        first = "; ".join(f"#{c['position']} {c['id']!r} ({c['reason']})" for c in cites["first"][:6])
        lines += ["", f"citation errors: {cites['count']}: {first}"]
    missing = report["breakdown"]["records"]["missing_from_submission"]
    if missing:
        lines += ["", f"{report.get('graded_split', 'test')} records missing from the submission: {missing}"]
    if (wrong := report["breakdown"].get("wrong_facts")) and wrong["count"]:
        kinds = {"false_positive": "false positive", "false_negative": "false negative"}
        lines += ["", f"wrong facts: {wrong['count']}" + (f" (the first {len(wrong['first'])})" if wrong["count"] > len(
            wrong["first"]) else "")] + [f"  {w['id']:<14} {w['slice']:<21} {kinds[w['kind']]:<15} {w['fact']}"
                                         for w in wrong["first"]]  # fmt: skip
    if "semantic" in report:
        from s8f_duck.grading import semantic

        lines += ["", *semantic.table_lines(report["semantic"])]
    return printable_lines("\n".join(lines))  # (a submission's keys and ids among them)


def batch_table(graded: list[Graded]) -> str:
    """A row per submission of a batch: its verdict and core counts, or why it was not graded."""
    semantic = any(g.report is not None and "semantic" in g.report for g in graded)
    head = f"{'submission':<40}{'verdict':>9}{'exact':>13}{'FP':>8}{'FN':>8}{'agg':>5}{'cit':>5}"
    lines = [head + (f"{'semantic':>10}" if semantic else "")]
    for g in graded:
        name = str(g.submission)[-39:]
        if g.report is None:
            lines.append(f"{name:<40}{'UNUSABLE':>9}  {g.error}")
            continue
        r = g.report
        verdict = "PASS" if r["quality_pass"] else "FAIL"
        exact = f"{r['exact_records']}/{graded_records(r)}"
        lines.append(f"{name:<40}{verdict:>9}{exact:>13}{r['false_positive_facts']:>8}{r['false_negative_facts']:>8}"
                     f"{r['aggregate_errors']:>5}{r['citation_errors']:>5}{_semantic_cell(r) if semantic else ''}")  # fmt: skip
    if semantic:
        lines += ["", "semantic: the share of the adjudicated fields answered right, over every graded record "
                      "(each field's figures: --format json or jsonl, or grade one submission)"]  # fmt: skip
    return printable_lines("\n".join(lines))


def _semantic_cell(report: dict[str, Any]) -> str:
    from s8f_duck.grading import semantic

    return f"{semantic.overall_accuracy(report['semantic']):>10.4f}" if "semantic" in report else f"{'-':>10}"
