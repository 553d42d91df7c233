"""The SQL files under sql/ and the order each command runs them in.

Each file creates the one table (or the macros) it is named for. The lists below are the
whole pipeline: reading them top to bottom is reading what a command computes.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.pipeline import hashing
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.memory import MEMORY_LIMIT_ENV, memory_limit
from s8f_duck.safety.scratch import remove_later, scratch_directory


def _sql_dir() -> Path:
    """The repository's sql/ (a checkout, or an editable install of one), else the copy
    installed inside the package (pyproject.toml)."""
    package = Path(__file__).resolve().parents[1]
    checkout = package.parent / "sql"
    return checkout if (checkout / "macros" / "grading.sql").is_file() else package / "sql"


SQL_DIR = _sql_dir()

# The macros, by what they serve; the step "macros" is all of them. Each file runs once per
# connection (its last line sets the variable s8f_duck_macros_{name}): a grade creates
# only those it uses (creating a macro costs about 0.5 ms).
MACRO_STEPS: tuple[str, ...] = ("macros/grading", "macros/reading", "macros/writing", "macros/corpus")

# Facts derived from `scrubbed_issues` and `labels`: shared by freeze (from the raw
# dump) and by the baseline and verify (from the public corpus). First the passes over
# the texts and the splits, then the answer bundle's tables.
TEXT_FACT_STEPS: tuple[str, ...] = (
    "facts/text_digests",
    "facts/reference_edges",
    "facts/duplicate_edges",
    "facts/contradiction_cues",
    "facts/components",
    "facts/splits",
)
ANSWER_FACT_STEPS: tuple[str, ...] = (
    "facts/answers",
    "facts/state_counts",
    "facts/label_counts",
    "facts/newest_issue_ids",
    "facts/most_recently_updated_issue_ids",
    "facts/answers_json",
    "facts/aggregates_json",
)
FACT_STEPS: tuple[str, ...] = (*TEXT_FACT_STEPS, *ANSWER_FACT_STEPS)

# freeze: raw_issues and redactions -> the public corpus's tables ...
FREEZE_STEPS: tuple[str, ...] = (
    "macros",
    "freeze/scrub_passes",
    "freeze/scrubbed_issues",
    "freeze/labels",
    "freeze/label_lists",
    *TEXT_FACT_STEPS,
    "freeze/public_fields",
    "freeze/issues",
    "freeze/public_json",
    "freeze/corpus_header",
)

# freeze --keep-splits OLD (corpus/refresh.py): the older corpus's splits read; FREEZE_STEPS
# with the splits kept (a new record joining older splits left out: the dump without them,
# then the steps again); the report's member.
OLDER_SPLITS_STEPS: tuple[str, ...] = ("freeze/older_splits",)
KEPT_SPLIT_STEPS: tuple[str, ...] = ("facts/new_clusters", "facts/left_out", "facts/kept/splits")
KEPT_FREEZE_STEPS: tuple[str, ...] = tuple(
    kept for step in FREEZE_STEPS for kept in ((step, *KEPT_SPLIT_STEPS) if step == "facts/splits" else (step,))
)
LEFT_OUT_STEPS: tuple[str, ...] = ("freeze/kept/raw_issues",)
KEPT_REPORT_STEPS: tuple[str, ...] = ("freeze/kept_splits_report",)

# ... then, on a second connection while the public corpus is written (the two share
# both cores): the answer bundle's tables, the report's counts and the leak checks that
# need only the tables.
BESIDE_PUBLIC_STEPS: tuple[str, ...] = (*ANSWER_FACT_STEPS, "freeze/report_counts", "freeze/content_checks")

# After the artifacts are written: content_checks, public_scan, oracle_grade -> leak_checks.
LEAK_CHECK_STEPS: tuple[str, ...] = ("freeze/leak_checks",)

# baseline: the public corpus loaded as raw_issues with an empty redaction
# map (its text is already scrubbed) -> answers and aggregates, by freeze's own SQL.
BASELINE_STEPS: tuple[str, ...] = (
    "macros", "freeze/scrub_passes", "freeze/scrubbed_issues", "freeze/labels", "freeze/label_lists", *FACT_STEPS
)

# adjudicate packet: the public corpus loaded as raw_issues -> its splits, by freeze's own
# SQL -> the records a packet holds.
PACKET_STEPS: tuple[str, ...] = (
    "macros", "freeze/scrub_passes", "freeze/scrubbed_issues", *TEXT_FACT_STEPS, "adjudication/packet_records"
)

# adjudicate packet --extend / --where: the same, then the public columns a --where filters
# (packet_candidates; packet_wanted is made from them) and the grown packet's records
# (with packet_older, the older packet's).
GROWN_PACKET_STEPS: tuple[str, ...] = (*PACKET_STEPS[:-1], "adjudication/packet_candidates")
GROWN_PACKET_RECORD_STEPS: tuple[str, ...] = ("adjudication/grown/packet_records",)

# adjudicate agree: packet_units (record_index, id), rubric_fields (field, multi),
# adjudicated_labels (adjudicator, id, field, value, labels) and the variables
# agreement_resamples, agreement_seed -> the bootstrap's weights, pairwise agreement and
# kappa, the labels' distances, alpha, the figures with their intervals, the confusion of
# each pair and the records they disagree on.
AGREEMENT_STEPS: tuple[str, ...] = (
    "adjudication/agreement_weights", "adjudication/pair_agreement", "adjudication/label_distances",
    "adjudication/field_alpha",
    "adjudication/agreement", "adjudication/pair_confusion", "adjudication/disagreements",
    "adjudication/judge_agreement", "adjudication/probe_changes",
)

# adjudicate gold (after load_public, the inputs of adjudicate agree, resolver_labels and
# the variable gold_policy) -> the agreement figures, the gold label of every record and
# field, their counts and each field's ceiling; then, with semantic_scan and packet_given,
# the leak checks.
GOLD_STEPS: tuple[str, ...] = (
    *PACKET_STEPS[:-1], *AGREEMENT_STEPS, "adjudication/gold_labels", "adjudication/gold_counts",
    "adjudication/adjudicator_ceiling_resamples", "adjudication/adjudicator_ceilings", "adjudication/gold_ceilings",
    "adjudication/gold_gates",
)
SEMANTIC_LEAK_CHECK_STEPS: tuple[str, ...] = ("adjudication/semantic_leak_checks",)

# grade --semantic: semantic_rubric, semantic_gold, semantic_ceilings (the semantic bundle),
# semantic_entries (the submission's semantic member) and the variables s8f_graded_split,
# agreement_resamples, agreement_seed -> the answers checked, the graded records and their
# results, the bootstrap's weights, label counts, per-resample scores and the grade.
SEMANTIC_GRADE_STEPS: tuple[str, ...] = (
    "macros/grading", "grade/semantic_answers", "grade/packet_units", "grade/semantic_results",
    "adjudication/agreement_weights", "grade/semantic_label_counts", "grade/semantic_resampled",
    "grade/semantic_grade",
)

# grade: answers + aggregates and submitted_* tables -> the grade and its details.
GRADE_STEPS: tuple[str, ...] = (
    "macros/grading",
    "grade/grade_binding",
    "grade/submitted_repeats",
    "grade/citation_errors",
    "grade/gold_facts",
    "grade/submitted_facts",
    "grade/answer_pairs",
    "grade/fact_errors",
    "grade/record_results",
    "grade/aggregate_errors",
    "grade/grade",
    "grade/slice_breakdown",
    "grade/aggregate_breakdown",
    "grade/wrong_facts",
)

# grade --created-after: on a connection of its own, the cutoff, then (after load_public)
# each record's creation time and whether it is in the window ...
WINDOW_DATE_STEPS: tuple[str, ...] = ("grade/window_cutoff", "grade/window_dates")
# ... then, beside the grade tables and window_dates: the window's record and slice figures
# with bootstrap intervals (variables window_resamples, window_seed) and its primary score.
WINDOW_STEPS: tuple[str, ...] = (
    "grade/window_record_slices", "grade/window_weights", "grade/window_resampled", "grade/window_slices",
    "grade/window_primary", "grade/window_grade",
)
# ... and with --semantic, after the semantic grade (SEMANTIC_GRADE_STEPS) and window_dates:
# each field's accuracy over the window's gold records.
WINDOW_SEMANTIC_STEPS: tuple[str, ...] = ("grade/window_semantic",)

# Of those, the two views of every graded fact, which only a run's record reads
# (sql/runs/run_facts.sql): a grade that keeps no record (the command, the service) skips them.
GRADE_FACT_VIEWS: tuple[str, ...] = ("grade/gold_facts", "grade/submitted_facts")

# run: the grade tables (or, for a run that was not graded, empty ones) and the runner's
# run_meta and run_request_log -> one transaction of rows in the attached runs database.
UNGRADED_STEPS: tuple[str, ...] = ("macros", "runs/ungraded")
NO_SEMANTIC_STEPS: tuple[str, ...] = ("runs/no_semantic",)  # a run not graded on a semantic bundle
RUN_RECORD_STEPS: tuple[str, ...] = (
    "runs/runs", "runs/run_slices", "runs/run_aggregates", "runs/run_records", "runs/run_facts",
    "runs/run_missed_facts", "runs/run_requests", "runs/run_semantic", "runs/run_semantic_results",
    "runs/run_semantic_gold", "runs/run_request_models",
)  # fmt: skip
# ... then, in the same transaction: the corpus's record dates (once per corpus; the
# runner's run_dates) and what the run was told of the clock (clock_given; also
# runs --set-cutoff's).
CLOCK_RECORD_STEPS: tuple[str, ...] = ("runs/record_dates", "runs/run_clock")
# After a run's record: a database written before run_missed_facts
# loses its test runs' missed gold facts for their counts (docs/runs.md).
RUNS_MIGRATION_STEPS: tuple[str, ...] = ("runs/migrate_missed_facts",)

# serve: the pending submission (one row) -> the service database's submissions table;
# the submissions -> the public leaderboard.
SERVICE_STEPS: tuple[str, ...] = ("service/submissions",)
# serve, as it opens the store: binding_given (one row) -> the store's binding, when new.
SERVICE_BINDING_STEPS: tuple[str, ...] = ("service/store_binding",)
SERVICE_LEADERBOARD_STEPS: tuple[str, ...] = ("service/leaderboard",)
# serve --semantic, at start: the semantic bundle's test entries and the variables
# s8f_ladder_step, s8f_exact_test_records -> whether its test part fits the Ladder's step.
SERVICE_SEMANTIC_STEPS: tuple[str, ...] = ("service/semantic_ladder",)

# leaderboard: the runs database attached read-only as `runs`, and the variables
# leaderboard_resamples, leaderboard_seed, leaderboard_min_label_facts (and, for a
# comparison, leaderboard_run_a / leaderboard_run_b) -> per run and score (slice, all
# facts, frequent label) precision, recall, F1 and bootstrap intervals, the ranked
# leaderboard, the paired differences. The first step alone comes before the comparison
# is checked.
LEADERBOARD_STEPS: tuple[str, ...] = (
    "leaderboard/leaderboard_runs",
    "leaderboard/graded_records",
    "leaderboard/missed_facts",
    "leaderboard/frequent_labels",
    "leaderboard/leaderboard_scores",
    "leaderboard/resample_weights",
    "leaderboard/gold_counts",
    "leaderboard/error_counts",
    "leaderboard/resampled_gold",
    "leaderboard/resampled_errors",
    "leaderboard/resample_scores",
    "leaderboard/score_intervals",
    "leaderboard/primary_slices",
)
# leaderboard, on a runs database written before run_missed_facts: instead of missed_facts.
NO_MISSED_FACTS_STEPS: tuple[str, ...] = ("leaderboard/no_missed_facts",)
# leaderboard, when the runs database records the clock (runs.record_dates, runs.run_clock):
# each graded record's creation time, the runs' model cutoffs, the primary score per run
# before and after its cutoff (bootstrap intervals on the group's draws, their paired
# difference) and per creation month.
LEADERBOARD_CLOCK_STEPS: tuple[str, ...] = (
    "leaderboard/clock_records", "leaderboard/clock_cutoffs", "leaderboard/clock_record_slices",
    "leaderboard/clock_cells", "leaderboard/clock_points", "leaderboard/clock_resampled", "leaderboard/clock_scores",
    "leaderboard/clock_months",
)
# leaderboard, when the runs database records semantic grades (run --semantic): per run and
# field the semantic grade beside its ceiling, per label, the comparison's differences, and
# the adjudicated accuracies per resample a ranking can use; without them, those empty.
LEADERBOARD_SEMANTIC_STEPS: tuple[str, ...] = (
    "leaderboard/semantic_runs", "leaderboard/semantic_scores", "leaderboard/semantic_label_scores",
    "leaderboard/semantic_overall",
    "leaderboard/semantic_differences", "leaderboard/semantic_resamples", "leaderboard/semantic_points",
)
LEADERBOARD_NO_SEMANTIC_STEPS: tuple[str, ...] = ("leaderboard/no_semantic_ranking",)
# leaderboard, when the runs database records semantic grades, before the comparison is
# checked: the gold they rest on and the models each run asked; a database written before
# those were recorded (no run_semantic_gold, run_request_models) reads them empty.
LEADERBOARD_GOLD_STEPS: tuple[str, ...] = ("leaderboard/semantic_gold", "leaderboard/request_models")
LEADERBOARD_NO_GOLD_STEPS: tuple[str, ...] = ("leaderboard/no_semantic_gold",)
# leaderboard, then (the variables leaderboard_rank_by, leaderboard_min_n): every score a run
# can be ranked on with its interval and n, the paired differences of every pair of runs,
# separability, the rank groups, the ranked leaderboard and a comparison's differences.
LEADERBOARD_RANK_STEPS: tuple[str, ...] = (
    "leaderboard/rankable_resamples", "leaderboard/rankable_points", "leaderboard/run_pairs",
    "leaderboard/separability", "leaderboard/rank_groups", "leaderboard/leaderboard",
    "leaderboard/paired_differences",
)


def memory_limit_bytes(con: duckdb.DuckDBPyConnection | None = None) -> int:
    """The configured memory limit in bytes, as DuckDB reads it (any form it takes: "3GB",
    "3G", "3GiB", "75%", ...), asked of a connection made by `connect` (else of one made
    for it: 15-40 ms); a value DuckDB refuses is unusable input naming the variable."""
    limit = memory_limit()
    if limit not in _LIMIT_BYTES:
        if con is None:
            with _connection({"memory_limit": limit}) as own:
                return memory_limit_bytes(own)
        try:  # the exact figure of a size; for a share of the memory, DuckDB's own rounding of it
            query, parameters = "SELECT parse_formatted_bytes(?)", [limit]
            _LIMIT_BYTES[limit] = int(con.execute(query, parameters).fetchall()[0][0])
        except duckdb.Error:
            query = "SELECT parse_formatted_bytes(current_setting('memory_limit'))"
            _LIMIT_BYTES[limit] = int(con.execute(query).fetchall()[0][0])
    return _LIMIT_BYTES[limit]


_LIMIT_BYTES: dict[str, int] = {}


def memory_limit_mb(con: duckdb.DuckDBPyConnection | None = None) -> int:
    """The configured memory limit in MiB."""
    return memory_limit_bytes(con) // 2**20


def _connection(
    config: dict[str, str], database: str = ":memory:", read_only: bool = False
) -> duckdb.DuckDBPyConnection:
    """duckdb.connect, with a memory limit DuckDB refuses named as the variable it came from,
    and without DuckDB's progress bar: it writes to standard output, into a command's
    results (`grade --format json`), once a query has run two seconds. (A connection's
    own setting, which its cursors take.)"""
    try:
        con = duckdb.connect(database, read_only=read_only, config=config)
    except (duckdb.InvalidInputException, duckdb.ParserException) as exc:
        if "memory" not in str(exc).lower():
            raise
        raise UnusableInput(f"${MEMORY_LIMIT_ENV}={memory_limit()!r} is not a memory size DuckDB takes: {exc}") from None
    con.execute("SET enable_progress_bar = false")
    return con


def connect(
    database: str = ":memory:", *, read_only: bool = False, threads: int | None = None
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection that keeps to a memory limit and spills to a private temporary
    directory (removed at exit) instead of failing, so large corpora degrade to disk.
    The limit is $S8F_DUCK_MEMORY_LIMIT (DuckDB syntax, e.g. "6GB"), by default 3GB.
    threads: DuckDB's threads, if not one per core (given here, not set after: starting
    the threads it then stops costs about 5 ms)."""
    spill = tempfile.mkdtemp(prefix="s8f-duck-spill-")
    atexit.register(shutil.rmtree, spill, ignore_errors=True)
    config = {"memory_limit": memory_limit(), "temp_directory": spill}
    if threads is not None:
        config["threads"] = str(threads)
    con = _connection(config, database, read_only)
    if not read_only:
        hashing.register(con, columns=False)
    return con


ROW_GROUP_SIZE = 16384  # DuckDB gives each row group one thread: small groups use both cores


SMALL_INPUT_BYTES = 32 * 2**20  # below this, a database file costs more time than it saves
# Below this, a second thread costs more than it saves (measured: S8f's 3.5 MB and 2,000
# issues in 6.8 MB freeze 0.05 s faster on one; 5,000 issues in 17 MB, 0.04 s slower).
ONE_THREAD_BYTES = 8 * 2**20


# An input larger than this share of the memory limit is worked on in a database file.
FILE_SHARE = 4

# DuckDB checkpoints a database file whenever its write-ahead log passes a threshold
# (16 MiB by default), which in a freeze is after nearly every step: each checkpoint
# rewrote tables, and a million issues froze in 77.7 s with them, 73.0 s without.
CHECKPOINT_THRESHOLD = "1TB"


def scan_by_vectors(con: duckdb.DuckDBPyConnection) -> None:
    """Let DuckDB hand out a table's scan to its threads a vector (2,048 rows) at a time
    instead of a row group at a time. In memory a row group holds 122,880 rows whatever
    ROW_GROUP_SIZE says, so a 100,000-row table is scanned on one core (the scrub scan,
    the reference and duplicate edges); this way on all (100,000 issues freeze 0.5 s
    faster). DuckDB's switch for it is the verify_parallelism pragma, which exists for its
    own tests to check that parallel plans give the results serial ones give; it also runs
    small hash-join builds in parallel. Cursors made by `cursor` inherit it. A DuckDB
    without the pragma scans by row group: slower, the same results."""
    try:
        con.execute("PRAGMA verify_parallelism")
    except duckdb.Error:
        return
    con.execute("SET VARIABLE s8f_duck_vector_scans = true")


@contextmanager
def work_database(path: Path | None, input_bytes: int | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection whose tables live in a database file with small row groups (tables of
    100,000 rows are then scanned by several threads; its blocks are evicted without
    spilling): the given path, or, for an input larger than a FILE_SHARE-th of the memory
    limit or of unknown size, a temporary one removed afterwards. Otherwise in memory,
    where DuckDB ignores ROW_GROUP_SIZE, so tables are scanned by vectors instead
    (scan_by_vectors), and 100,000 issues freeze faster and in 0.07 GB less than with a
    file (no compression, no file). With no path and an input smaller than
    SMALL_INPUT_BYTES, a plain in-memory database; for an input smaller than
    ONE_THREAD_BYTES, on one thread."""
    if path is None and input_bytes is not None and input_bytes < SMALL_INPUT_BYTES:
        con = connect()
        if input_bytes < ONE_THREAD_BYTES:
            con.execute("SET threads = 1")
        else:
            scan_by_vectors(con)
        try:
            yield con
        finally:
            con.close()
        return
    with scratch_directory("s8f-duck-db-") as scratch:  # removed in the background once closed
        con = connect()
        try:
            in_memory = path is None and input_bytes is not None and input_bytes * FILE_SHARE <= memory_limit_bytes(con)
            target = ":memory:" if in_memory else str(path or scratch / "corpus.duckdb").replace("'", "''")
            con.execute(f"ATTACH '{target}' AS corpus (ROW_GROUP_SIZE {ROW_GROUP_SIZE})")
            con.execute("USE corpus")
            hashing.register(con, columns=True)
            if in_memory:
                scan_by_vectors(con)
            else:  # checkpoint once, at the end, and not at all a file that is then removed
                con.execute(f"SET checkpoint_threshold = '{CHECKPOINT_THRESHOLD}'")
                if path is None:
                    con.execute("PRAGMA disable_checkpoint_on_shutdown")
                    con.execute("SET VARIABLE s8f_duck_scratch = ?", [str(scratch)])
            yield con
        finally:
            con.close()


def leave_work_file(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> None:
    """When con works in a temporary database file (work_database): copy the given (small)
    tables into the connection's own in-memory database, go on there, and close the file
    and delete it in the background, while the command finishes (at a million issues,
    deleting the 4 GB file took 1.1 s, now spent beside the scan of the public bytes).
    Otherwise (in memory, or a file the user keeps) nothing changes."""
    (scratch,) = con.execute("SELECT getvariable('s8f_duck_scratch')").fetchall()[0]
    if not scratch:
        return
    (database,) = con.execute("SELECT current_database()").fetchall()[0]
    for table in tables:
        con.execute(f'CREATE TABLE memory.main."{table}" AS SELECT * FROM "{database}".main."{table}"')
    con.execute("USE memory.main")
    con.execute(f'DETACH "{database}"')
    con.execute("SET VARIABLE s8f_duck_scratch = NULL")
    remove_later(Path(scratch))


@contextmanager
def loading_into_file(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While an input is loaded into a database file: one DuckDB thread more than
    configured, and the tables written uncompressed. There DuckDB's threads also wait on
    writing the file's blocks (and on each other's writes to it), and a third thread on 2
    cores keeps both busy meanwhile (1,000,000 issues loaded in 15.9-16.8 s instead of
    18.0-20.7 s). DuckDB keeps the bodies, most of the bytes, uncompressed anyway, but
    only after trying to compress each row group of them (the load of a million issues:
    20.4-21.6 CPU-seconds uncompressed, 21.5-25.1 compressed, in five pairs). In memory,
    neither helps, so neither is done there. It also cuts the dump into one more part
    (load.load_raw)."""
    (path,) = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()[0]
    if not path:
        yield
        return
    threads = int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])
    con.execute(f"SET threads = {threads + 1}")
    con.execute("SET force_compression = 'uncompressed'")
    try:
        yield
    finally:
        con.execute(f"SET threads = {threads}")
        con.execute("RESET force_compression")


def cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """A second connection to con's database, for another thread: in con's current schema,
    with con's macros and way of scanning (scan_by_vectors)."""
    database, schema, vector_scans = con.execute(
        "SELECT current_database(), current_schema(), getvariable('s8f_duck_vector_scans')"
    ).fetchall()[0]
    other = con.cursor()
    other.execute(f'USE "{database}"."{schema}"')
    mark_macros(other, macros_created(con))
    if vector_scans:
        scan_by_vectors(other)
    return other


def sql_path(step: str) -> Path:
    return SQL_DIR / f"{step}.sql"


def all_sql_files() -> list[Path]:
    return sorted(SQL_DIR.rglob("*.sql"))


# A step run on a second connection while the steps named beside it run on the first,
# where the first leave a core idle: the digests go mostly through Python's hashlib on
# one core; the components are mostly one recursive query.
RUN_BESIDE: dict[str, tuple[str, ...]] = {
    "facts/text_digests": ("facts/reference_edges", "facts/duplicate_edges"),
    "facts/contradiction_cues": ("facts/components", "facts/splits"),
}


# Top-ten tables that the emulation of Go's unstable sort settles after their SQL step,
# when ties reach the first ten (the step's variable `{table}_tied`): table -> the column
# prefix of the instant it orders by (gosort.settle_ties).
SETTLED_BY_GO_SORT: dict[str, str] = {
    "facts/newest_issue_ids": "created",
    "facts/most_recently_updated_issue_ids": "updated",
}


def run_steps(con: duckdb.DuckDBPyConnection, steps: Sequence[str]) -> None:
    """Run each step's SQL file in order on the connection; each file of macros only once
    per connection ("macros": all of them). A step of RUN_BESIDE
    followed by the steps named for it runs on a second connection meanwhile."""
    at = 0
    while at < len(steps):
        step, at = steps[at], at + 1
        alongside = RUN_BESIDE.get(step, ())
        if alongside and tuple(steps[at : at + len(alongside)]) == alongside:
            with cursor(con) as second, ThreadPoolExecutor(1) as pool:  # DuckDB releases the GIL
                other = pool.submit(run_steps, second, [step])
                run_steps(con, alongside)
                other.result()
            at += len(alongside)
        elif step == "macros" or step in MACRO_STEPS:
            created = macros_created(con)
            for name in MACRO_STEPS if step == "macros" else (step,):
                if name not in created:
                    con.execute(sql_path(name).read_text(encoding="utf-8"))
        else:
            con.execute(sql_path(step).read_text(encoding="utf-8"))
            if step in SETTLED_BY_GO_SORT:
                from s8f_duck.pipeline import gosort

                gosort.settle_ties(con, Path(step).name, SETTLED_BY_GO_SORT[step])


def _macro_variable(step: str) -> str:
    return "s8f_duck_macros_" + Path(step).name


def macros_created(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The MACRO_STEPS that have run on this connection (or are marked as visible to it)."""
    flags = con.execute(f"SELECT {', '.join(f'getvariable({_macro_variable(m)!r})' for m in MACRO_STEPS)}")
    return [step for step, flag in zip(MACRO_STEPS, flags.fetchall()[0]) if flag]


def mark_macros(con: duckdb.DuckDBPyConnection, created: Sequence[str]) -> None:
    """Let run_steps know that the macros of these MACRO_STEPS are visible to con (a cursor
    of a connection that created them, in a schema on its search path)."""
    for step in created:
        con.execute(f"SET VARIABLE {_macro_variable(step)} = true")


def create_table(
    con: duckdb.DuckDBPyConnection, name: str, columns: dict[str, str], values: Sequence[tuple[Any, ...]]
) -> None:
    """A table of a few rows from Python values, columns given as {name: SQL type}."""
    con.execute(f'CREATE OR REPLACE TABLE "{name}" ({", ".join(f"{c} {t}" for c, t in columns.items())})')
    if values:  # one statement: executemany plans one per row
        row = "(" + ", ".join("?" * len(columns)) + ")"
        con.execute(f'INSERT INTO "{name}" VALUES {", ".join([row] * len(values))}', [v for r in values for v in r])


def register(con: duckdb.DuckDBPyConnection, tables: dict[str, object], prefix: str = "") -> None:
    """Copy Arrow tables into DuckDB tables named prefix + name."""
    for name, table in tables.items():
        con.register("_incoming", table)
        con.execute(f'CREATE OR REPLACE TABLE "{prefix}{name}" AS SELECT * FROM _incoming')
        con.unregister("_incoming")


def rows(con: duckdb.DuckDBPyConnection, query: str) -> list[dict[str, Any]]:
    """A query's rows as dicts."""
    cursor = con.execute(query)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
