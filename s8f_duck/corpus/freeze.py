"""`s8f-duck freeze`: raw gh JSON -> public corpus, answer bundle, report (docs/format.md §1-§6).

The raw dump may also be in GitHub's REST form, or gzip-compressed (input_forms.py)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.corpus import artifacts
from s8f_duck.corpus.refresh import Older, kept_freeze_steps, read_older, report_member
from s8f_duck.grading import grade
from s8f_duck.pipeline.literals import required_literal
from s8f_duck.pipeline.steps import (
    BESIDE_PUBLIC_STEPS,
    FREEZE_STEPS,
    LEAK_CHECK_STEPS,
    create_table,
    cursor,
    leave_work_file,
    loading_into_file,
    rows,
    run_steps,
    work_database,
)
from s8f_duck.reading import input_forms
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import read_json_file
from s8f_duck.safety import arguments, replacing
from s8f_duck.safety.errors import UnusableInput, Verdict
from s8f_duck.safety.progress import Progress
from s8f_duck.safety.scratch import wait_for_removals

DEFAULT_REDACTIONS = Path(__file__).resolve().parents[1] / "data" / "redactions.json"


@dataclass
class FreezeResult:
    corpus_sha256: str
    answers_sha256: str
    report: dict[str, Any]
    scrub_hits: dict[int, int]  # number -> matches of the redaction map in its text (verify: must be none)
    rest_container: str | None = None  # the REST form's (array, pages, lines); None for gh's array
    pull_requests_dropped: int = 0


def load_redactions(path: Path) -> list[str]:
    """The redaction map: a JSON array of RE2 patterns, applied in order (docs/format.md §2)."""
    patterns = read_json_file(path)
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
        raise UnusableInput(f"{path}: expected a JSON array of non-empty pattern strings")
    return patterns


def create_redactions(con: duckdb.DuckDBPyConnection, path: Path, patterns: list[str]) -> None:
    """Table `redactions` (rule, pattern, literal), each pattern checked by RE2 as the scrub
    uses it; literal is text every match contains, or NULL (literals.required_literal)."""
    rules = [(rule, pattern, required_literal(pattern)) for rule, pattern in enumerate(patterns, start=1)]
    create_table(con, "redactions", {"rule": "BIGINT", "pattern": "VARCHAR", "literal": "VARCHAR"}, rules)
    try:
        con.execute("SELECT count(*) FROM redactions WHERE regexp_matches('', '(?i)' || pattern)")
    except duckdb.Error:  # name the first pattern RE2 refuses
        for rule, pattern in enumerate(patterns, start=1):
            try:
                con.execute("SELECT regexp_matches('', ?)", ["(?i)" + pattern])
            except duckdb.Error as exc:
                raise UnusableInput(f"{path}: pattern {rule} {pattern!r} is not a valid RE2 pattern: {exc}") from None
        raise


def freeze(
    raw_path: Path,
    public_path: Path,
    answers_path: Path,
    report_path: Path,
    source: str,
    *,
    db_path: Path | None = None,
    parquet_path: Path | None = None,
    redactions_path: Path = DEFAULT_REDACTIONS,
    min_records: int = 50,
    progress: Progress | None = None,
    input_format: str = "auto",
    force: bool = False,
    keep_splits: Path | None = None,
) -> FreezeResult:
    """Freeze a dump; nothing appears at any output path unless every step succeeded.
    input_format: auto (told from the content), gh or rest (input_forms.py). keep_splits:
    an older public corpus whose records keep their splits (corpus/refresh.py). An output
    made from other inputs is replaced only with force (_refuse_other_outputs)."""
    arguments.check(
        {"RAW": raw_path, "--redactions": redactions_path, "--keep-splits": keep_splits},
        {"--public": public_path, "--answers": answers_path, "--report": report_path, "--db": db_path,
         "--parquet": parquet_path},
    )  # fmt: skip
    redactions = load_redactions(redactions_path)
    older = read_older(keep_splits) if keep_splits is not None else None
    dropped: list[int] = []

    try:
        with input_forms.opened(raw_path, input_format) as dump:

            def load(con: duckdb.DuckDBPyConnection) -> str:
                create_redactions(con, redactions_path, redactions)  # first: a bad map fails before the input is read
                dropped.append(input_forms.load(con, dump, min_records))  # no records: refused whatever min_records
                return source

            result = freeze_tables(
                load, public_path, answers_path, report_path, db_path=db_path, parquet_path=parquet_path,
                progress=progress, input_bytes=dump.issue_bytes, older=older, force=force,
            )  # fmt: skip
    except LeakCheckFailed as exc:
        raise Verdict(f"{raw_path}: leak checks failed: {', '.join(exc.failed)}; nothing written") from None
    finally:
        wait_for_removals()  # a gzip dump's decompressed copy, removed once `opened` ends
    result.rest_container = dump.container if dump.form == "rest" else None
    result.pull_requests_dropped = dropped[0]
    return result


def _beside_public(con: duckdb.DuckDBPyConnection, answers_path: Path) -> dict[str, Any]:
    """What needs no public corpus digest, run while the public corpus is written: the
    answer bundle's and the report's tables, the bundle (with UNBOUND_SHA256 as its corpus
    digest, bound later) and its grade as its own candidate. The grade reads the bundle's
    corpus digest only to compare it with the candidate's, the same file's."""
    with con:
        run_steps(con, BESIDE_PUBLIC_STEPS)
        artifacts.write_answers(con, answers_path, artifacts.UNBOUND_SHA256)
        with grade.separate_schema(con, "oracle"):  # in the same memory budget as the rest
            oracle = grade.core_report(grade.grade_database(answers_path, answers_path, con))
    return oracle


class PublicDiffers(Exception):
    """The re-derived public corpus is not the given one (freeze_tables' same_public_as)."""


class LeakCheckFailed(Verdict):
    def __init__(self, failed: list[str]) -> None:
        super().__init__(f"leak checks failed: {', '.join(failed)}")
        self.failed = failed


def freeze_tables(
    load: Callable[[duckdb.DuckDBPyConnection], str],
    public_path: Path,
    answers_path: Path,
    report_path: Path,
    *,
    db_path: Path | None = None,
    parquet_path: Path | None = None,
    progress: Progress | None = None,
    input_bytes: int | None = None,
    same_public_as: Path | None = None,
    older: Older | None = None,
    force: bool = False,
) -> FreezeResult:
    """Run the freeze pipeline on what `load` puts in the database (`raw_issues` and
    `redactions`; it returns the corpus source) and write the artifacts
    (all or nothing). input_bytes, the input's size, lets an input that fits be
    frozen in memory (steps.work_database). With same_public_as, the public corpus is
    compared with that file instead of being written (public_path is left empty), and
    PublicDiffers is raised unless they are the same bytes. With older, its records keep
    their splits and the report says so (corpus/refresh.py)."""
    progress = progress or Progress("freeze")
    outputs = artifacts.Outputs([public_path, answers_path, report_path, parquet_path], private=[answers_path, db_path])
    try:
        temp_public, temp_answers, temp_report = (outputs.temp_for(p) for p in (public_path, answers_path, report_path))
        with work_database(_temp_database(outputs, db_path), input_bytes) as con:
            progress.step("read the dump")
            with loading_into_file(con):
                source = load(con)
            progress.step("derive the splits, facts and answers")
            if older is None:
                run_steps(con, FREEZE_STEPS)
            else:
                kept_freeze_steps(con, older)
            if parquet_path is not None:
                progress.step("write the Parquet file")
                artifacts.write_parquet(con, outputs.temp_for(parquet_path))
            progress.step("write the public corpus and the answer bundle")
            public = _write_public_and_answers(con, source, temp_public, temp_answers, input_bytes, same_public_as)
            # what LEAK_CHECK_STEPS and the report read
            leave_work_file(con, ["content_checks", "report_counts", *(["kept_splits_report"] if older else [])])
            progress.step("check for leaks")
            answers_sha256 = artifacts.bind_answers(temp_answers, public.corpus_sha256)
            public.oracle["corpus_sha256"] = public.corpus_sha256  # the grade's only use of the bundle's header
            _check_leaks(con, same_public_as or temp_public, answers_sha256, public)
            report = artifacts.report_document(con, public.corpus_sha256, answers_sha256, public.oracle)
            if older is not None:  # after every member of the original's report
                report["keep_splits"] = report_member(con)
            artifacts.write_text(temp_report, dumps(report))
            if db_path is not None:  # what made the kept database, for the next freeze's check
                made = {"corpus_sha256": "VARCHAR", "answers_sha256": "VARCHAR", "source": "VARCHAR"}
                create_table(con, "made_from", made, [(public.corpus_sha256, answers_sha256, source)])
        if not force:
            _refuse_other_outputs(
                [(public_path, temp_public), (answers_path, temp_answers), (report_path, temp_report)],
                db_path, public.corpus_sha256, answers_sha256,
            )  # fmt: skip
        outputs.commit()  # while the work database is removed (scratch.remove_later)
    finally:
        outputs.discard()
        wait_for_removals()
    return FreezeResult(public.corpus_sha256, answers_sha256, report, public.scrub_hits)


def _refuse_other_outputs(
    files: list[tuple[Path, Path]], db_path: Path | None, corpus_sha256: str, answers_sha256: str
) -> None:
    """Refuse (exit 2, nothing written) to replace an output that is not what this freeze
    made: a JSON artifact of other bytes (another dump, source or redaction map), or a
    database whose made_from table names another corpus or has none."""
    wanted = f"this dump (public corpus {corpus_sha256})"
    replacing.refuse_others(files, wanted, _made_from)
    if replacing.exists(db_path):
        assert db_path is not None
        try:
            with duckdb.connect(str(db_path), read_only=True) as con:
                (recorded,) = con.execute("SELECT corpus_sha256, answers_sha256, source FROM made_from").fetchall()
        except (duckdb.Error, ValueError):
            unknown = "something with no record of its corpus (no made_from table)"
            raise replacing.refuse(db_path, unknown, wanted) from None
        if tuple(recorded[:2]) != (corpus_sha256, answers_sha256):
            raise replacing.refuse(db_path, f"the dump of {recorded[2]!r} (public corpus {recorded[0]})", wanted)


def _made_from(path: Path) -> str:
    """What made an existing artifact, as its own header says."""
    head = replacing.head_fields(path)
    if head.get("schema") == artifacts.CORPUS_SCHEMA:
        return f"the dump of {head.get('source')!r} (public corpus {artifacts.file_sha256(path)})"
    if head.get("schema") in (artifacts.ANSWERS_SCHEMA, artifacts.REPORT_SCHEMA) and "corpus_sha256" in head:
        return f"another dump (public corpus {head['corpus_sha256']})"
    return "something else (not this freeze's output)"


def _temp_database(outputs: artifacts.Outputs, db_path: Path | None) -> Path | None:
    """Where the kept database (--db) is built until the commit; None: a work database."""
    if db_path is None:
        return None
    temp_db = outputs.temp_for(db_path)
    temp_db.unlink()  # DuckDB creates the file itself
    return temp_db


@dataclass
class _Written:
    """What writing the public corpus found, for the leak checks and the report."""

    corpus_sha256: str
    fields_found: dict[str, bool]  # each answer field's name: whether the public bytes hold it
    oracle: dict[str, Any]  # the answer bundle's grade as its own candidate
    scrub_hits: dict[int, int]  # record number -> the scrub's matches in it


def _write_public_and_answers(
    con: duckdb.DuckDBPyConnection,
    source: str,
    temp_public: Path,
    temp_answers: Path,
    input_bytes: int | None,
    same_public_as: Path | None,
) -> _Written:
    """The public corpus written (or compared with same_public_as) while a second
    connection writes the answer bundle and grades it (_beside_public)."""
    hits = "SELECT number, scrub_matches FROM scrub_passes WHERE scrub_matches > 0 ORDER BY number"
    scrub_hits = dict(con.execute(hits).fetchall())
    with ThreadPoolExecutor(1) as pool:  # DuckDB releases the GIL: the two share both cores
        beside = pool.submit(_beside_public, cursor(con), temp_answers)
        writer = artifacts.ComparingWriter(same_public_as) if same_public_as else artifacts.HashingWriter(temp_public)
        corpus_sha256, fields_found = artifacts.write_public(con, writer, source, input_bytes)
        oracle = beside.result()
    if isinstance(writer, artifacts.ComparingWriter) and not writer.same:
        raise PublicDiffers
    return _Written(corpus_sha256, fields_found, oracle, scrub_hits)


def _check_leaks(con: duckdb.DuckDBPyConnection, public_bytes: Path, answers_sha256: str, public: _Written) -> None:
    """The leak checks (sql/freeze/leak_checks.sql) over the content checks, the oracle's
    grade and a scan of the public bytes for the bundle's digest and its fields."""
    digest_found = artifacts.file_contains(public_bytes, [answers_sha256])[answers_sha256]
    create_table(con, "oracle_grade", grade.CORE_TYPES, [tuple(public.oracle.values())])
    scan = [("answers_sha256", answers_sha256, digest_found)]
    scan += [("answer_field", needle, hit) for needle, hit in public.fields_found.items()]
    create_table(con, "public_scan", {"kind": "VARCHAR", "needle": "VARCHAR", "found": "BOOLEAN"}, scan)
    run_steps(con, LEAK_CHECK_STEPS)
    failed = [name for name, ok in rows(con, "SELECT * FROM leak_checks")[0].items() if not ok]
    if failed:
        raise LeakCheckFailed(failed)


S8F_REPOSITORY = "anthony-chaudhary/fak"  # the repository whose dump the default map was written for


def default_map_note(source: str) -> str | None:
    """What to tell whoever froze another repository's dump with the default map: which
    map scrubbed it and how to choose another (None for S8f's own source)."""
    if S8F_REPOSITORY in source:
        return None
    return (f"redaction map: S8f's own ({DEFAULT_REDACTIONS}: {', '.join(load_redactions(DEFAULT_REDACTIONS))}); "
            "for another repository give --redactions MAP (a JSON array of RE2 patterns; [] scrubs nothing)")  # fmt: skip


def summary(result: FreezeResult, map_note: str | None = None) -> str:
    """One line per headline figure, for the terminal."""
    r = result.report
    return "\n".join(
        [
            f"records {r['records']}: train {r['train_records']} / tune {r['tune_records']} / test {r['test_records']}",
            f"open {r['open_records']} / closed {r['closed_records']}; reference edges {r['reference_edges']}, "
            f"duplicate edges {r['duplicate_edges']}, contradiction cues {r['scope_contradictions']}",
            f"scrubbed records {r['scrubbed_records']}, matches {r['scrubbed_matches']}",
            *([map_note] if map_note else []),
            *([f"input: GitHub REST issue objects ({result.rest_container}); "
               f"pull requests dropped {result.pull_requests_dropped}"] if result.rest_container else []),
            f"public  sha256 {result.corpus_sha256}",
            f"answers sha256 {result.answers_sha256}",
            "leak checks: all true",
            *([_kept_line(r["keep_splits"])] if "keep_splits" in r else []),
        ]
    )


def _kept_line(kept: dict[str, Any]) -> str:
    """The summary's line for --keep-splits."""
    return (f"kept splits of {kept['older_corpus_sha256']}: {kept['older_records_kept']} older records kept, "
            f"{kept['older_records_missing']} missing from the dump; {kept['new_records']} new records, "
            f"{kept['new_records_left_out']} left out (they would join groups of different splits)")
