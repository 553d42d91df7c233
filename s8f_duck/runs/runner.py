"""`s8f-duck run`: run a candidate blind in the sandbox, grade what it wrote, record the run.

The candidate sees the public corpus at /corpus/public.json and nothing of the answers
or the runs database (their paths are refused in every mount); the grade happens here,
in the grader's process, after the sandbox has ended. Each run becomes rows of the runs
database (sql/runs/*.sql) in one transaction, and a directory beside it keeps the
submission, stdout and stderr (docs/runs.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.grading import grade as grading
from s8f_duck.grading import semantic as semantic_grading
from s8f_duck.grading.window import semantic_member, window_reports
from s8f_duck.pipeline.steps import (
    CLOCK_RECORD_STEPS,
    NO_SEMANTIC_STEPS,
    RUN_RECORD_STEPS,
    RUNS_MIGRATION_STEPS,
    UNGRADED_STEPS,
    connect,
    create_table,
    run_steps,
)
from s8f_duck.pipeline.text_tables import aligned, csv_text
from s8f_duck.reading.load import load_bundle, load_public
from s8f_duck.reading.schemas import ANSWERS_SCHEMA, CORPUS_SCHEMA, SEMANTIC_SCHEMA, SUBMISSION_SCHEMA
from s8f_duck.runs import clock, sandbox
from s8f_duck.runs.limits import WRITABLE, Limits, files_at
from s8f_duck.safety.errors import UnusableInput, json_given_for_database
from s8f_duck.safety.locks import wait_for_lock
from s8f_duck.safety.memory import MEMORY_LIMIT_ENV, memory_limit
from s8f_duck.safety.paths import no_runs_database, run_root
from s8f_duck.safety.printable import printable
from s8f_duck.safety.progress import Progress
from s8f_duck.safety.trees import file_sizes, remove_tree

CORPUS_IN_SANDBOX = "/corpus/public.json"
OUT_IN_SANDBOX = "/out"
OUTPUT_IN_SANDBOX = f"{OUT_IN_SANDBOX}/submission.json"
CANDIDATE_IN_SANDBOX = "/candidate"
SOCKETS_IN_SANDBOX = "/run/s8f/endpoints"
FIRST_ENDPOINT_PORT = 8101
SCRATCH_PREFIX = "s8f-duck-sandbox-"
OUTCOMES = ("graded", "failed", "no_submission", "unusable_submission", "timeout", "out_of_memory", "limit")
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?i?B?)\s*$", re.IGNORECASE)
_ENDPOINT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")
_LOCK_WAIT_SECONDS = 60


@dataclass
class RunRequest:
    """What `s8f-duck run` was asked to do."""

    public: Path
    answers: Path
    runs_db: Path
    name: str
    command: list[str]
    split: str = "test"
    candidate_dir: Path | None = None
    limits: Limits = field(default_factory=lambda: default_limits())
    endpoints: dict[str, str] = field(default_factory=dict)
    env_names: list[str] = field(default_factory=list)
    read_only: list[Path] = field(default_factory=list)
    submission_bytes: int | None = None  # the largest submission read; None: submission_limit(answers)
    semantic: Path | None = None  # a semantic answer bundle (adjudicate gold) to grade the submission on too
    created_after: str | None = None  # also grade the records created at or after it (the grade's window)
    model_cutoff: str | None = None  # the training cutoff of the candidate's model (runs/clock.py)


def default_limits() -> Limits:
    return Limits(wall_seconds=3600, memory_bytes=4 * 2**30, processes=256, file_bytes=2**30, output_bytes=16 * 2**20)


# A submission is about the size of the answer bundle; this leaves room for indentation and
# members the grader ignores, and bounds what grading one may cost (docs/runs.md).
SUBMISSION_LIMIT_FLOOR = 16 * 2**20
SUBMISSION_LIMIT_FACTOR = 4


def submission_limit(answers: Path) -> int:
    """The default --submission-limit: four times the answer bundle's size, at least 16 MiB."""
    return max(SUBMISSION_LIMIT_FLOOR, SUBMISSION_LIMIT_FACTOR * answers.stat().st_size)


def parse_size(text: str, what: str) -> int:
    """'8GB', '512MiB', '1.5G' as bytes (decimal units for KB/MB/GB/TB, binary for KiB...)."""
    match = _SIZE.match(text)
    if not match:
        raise UnusableInput(f"{what}: {text!r} is not a size such as 8GB or 512MiB")
    number, unit = float(match[1]), match[2].upper()
    power = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}[unit[:1] if unit[:1] in "KMGT" else ""]
    base = 1024 if "I" in unit else 1000
    return int(number * base**power) if unit[:1] in "KMGT" else int(number)


def parse_endpoint(text: str) -> tuple[str, str]:
    name, sep, url = text.partition("=")
    if not sep or not _ENDPOINT_NAME.match(name) or not re.match(r"^https?://[^/\s]+", url):
        raise UnusableInput(f"--allow-endpoint {text!r}: expected NAME=http(s)://host[:port][/base] (NAME: letters, digits, _)")
    return name.upper(), url


def _resolved(path: Path, what: str, *, directory: bool = False) -> Path:
    real = Path(os.path.realpath(path))
    if directory and not real.is_dir():
        raise UnusableInput(f"{path}: {what} is not a directory")
    if not directory and not real.is_file():
        raise UnusableInput(f"{path}: {what} is not a readable file")
    return real


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _secret_paths(request: RunRequest) -> list[Path]:
    """What no mount may show: the answers, the runs database, its run directories."""
    db = Path(os.path.realpath(request.runs_db))
    semantic = [_resolved(request.semantic, "semantic answer bundle")] if request.semantic else []
    return [_resolved(request.answers, "answer bundle"), *semantic, db, db.with_name(db.name + ".wal"), run_root(db)]


def _check_mounts(request: RunRequest, sources: list[Path]) -> None:
    secrets_ = _secret_paths(request)
    for source in sources:
        for secret in secrets_:
            if _inside(secret, source) or _inside(source, secret):
                raise UnusableInput(
                    f"{source}: would show {secret} inside the sandbox; mount a directory that holds no answers or runs"
                )


def tree_sha256(directory: Path | None) -> str | None:
    """SHA-256 over a directory's files: each relative path and its content's digest, sorted."""
    if directory is None:
        return None
    lines = []
    for path in sorted(p for p in directory.rglob("*") if p.is_file() or p.is_symlink()):
        relative = path.relative_to(directory).as_posix()
        if path.is_symlink():
            lines.append(f"link {relative} {os.readlink(path)}")
        else:
            with open(path, "rb") as file:
                lines.append(f"file {relative} {hashlib.file_digest(file, 'sha256').hexdigest()}")
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def _file_sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def check_inputs(request: RunRequest, public: Path, answers: Path, public_sha256: str) -> None:
    """Read the public corpus and the answer bundle as the grader will, before anything runs:
    each must be what its option names (a swap is named as one), and the bundle must be
    bound to this corpus. An hour of a candidate's work is never spent on a run that could
    not be graded, and the answers never reach the sandbox as --public."""
    with connect() as con:
        try:
            load_public(con, public)
        except UnusableInput as exc:
            raise UnusableInput(_misplaced(request.public, "--public", exc)) from None
        try:
            corpus = load_bundle(con, answers, "gold_", ANSWERS_SCHEMA)
        except UnusableInput as exc:
            raise UnusableInput(_misplaced(request.answers, "--answers", exc)) from None
    if corpus != public_sha256:
        raise UnusableInput(f"--answers {request.answers}: this answer bundle is for another public corpus than "
                            f"{request.public} (it is bound to {corpus}, the corpus is {public_sha256})")  # fmt: skip


_SCHEMA_NAMES = {
    CORPUS_SCHEMA: "a public corpus", ANSWERS_SCHEMA: "an answer bundle", SUBMISSION_SCHEMA: "a submission",
    SEMANTIC_SCHEMA: "a semantic answer bundle",
}  # fmt: skip


def _misplaced(path: Path, option: str, problem: UnusableInput) -> str:
    """Why a file cannot serve as the option given: what it is instead when its header
    says (the two options swapped), else the reader's own message."""
    try:
        with open(path, "rb") as file:
            head = file.read(4096).decode("utf-8", "replace")
    except OSError:
        head = ""
    found = re.search(r'"schema"\s*:\s*"([^"]*)"', head)
    wanted = CORPUS_SCHEMA if option == "--public" else ANSWERS_SCHEMA
    if found and found[1] != wanted and found[1] in _SCHEMA_NAMES:
        other = "--answers" if option == "--public" else "--public"
        swap = f": did you swap {option} and {other}?" if found[1] in (CORPUS_SCHEMA, ANSWERS_SCHEMA) else ""
        return f"{option} {path} is {_SCHEMA_NAMES[found[1]]}, not {_SCHEMA_NAMES[wanted]}{swap}"
    return f"{option} {problem}"


@dataclass
class RunResult:
    run_id: str
    outcome: str
    run_dir: Path
    record: dict[str, Any]
    grade: dict[str, Any] | None


def run(request: RunRequest, progress: Progress | None = None) -> RunResult:
    """Run, grade and record one candidate; the record is written even when the
    candidate fails, hits a limit or writes nothing usable."""
    from s8f_duck.runs.proxy import (  # here: httpx and uvicorn take 0.6 s to import
        REQUEST_COLUMNS,
        EndpointProxy,
        RequestLog,
    )

    progress = progress or Progress("run")
    public = _resolved(request.public, "public corpus")
    answers = _resolved(request.answers, "answer bundle")
    if public == answers:
        raise UnusableInput(f"{request.public}: the public corpus and the answer bundle are the same file")
    candidate = _resolved(request.candidate_dir, "candidate directory", directory=True) if request.candidate_dir else None
    read_only = [_resolved(p, "--ro path", directory=Path(p).is_dir()) for p in request.read_only]
    _check_mounts(request, [public, *([candidate] if candidate else []), *read_only])
    for name in request.env_names:
        if name not in os.environ:
            raise UnusableInput(f"--env {name}: not set in this environment")
    if not request.command:
        raise UnusableInput("no candidate command given (after --)")
    try:
        request.runs_db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UnusableInput(f"{request.runs_db}: cannot create its directory: {exc.strerror or exc}") from None
    progress.step("check the corpus, the answers and the sandbox")
    public_sha256 = _file_sha256(public)
    check_inputs(request, public, answers, public_sha256)
    cutoff_at = clock.check_dates(request.created_after, request.model_cutoff)
    dates = clock.read_dates(public, request.created_after)
    semantic = _resolved(request.semantic, "semantic answer bundle") if request.semantic else None
    if semantic is not None:
        semantic_grading.read_semantic(semantic, _file_sha256(answers))  # refused now, not after the run
    sandbox.check_available()
    most_bytes = request.submission_bytes or submission_limit(answers)

    started = datetime.now(UTC)
    run_id = f"{started:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"
    run_dir = run_root(Path(os.path.realpath(request.runs_db))) / run_id
    run_dir.mkdir(parents=True, mode=0o700)
    _remove_abandoned_scratch()
    # Private (0700), named for this process so a later run can tell when it was abandoned;
    # short, because a Unix socket's path is limited to about 100 bytes.
    scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
    log = RequestLog()
    try:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": OUT_IN_SANDBOX,
            "LANG": "C.UTF-8",
            "S8F_PUBLIC": CORPUS_IN_SANDBOX,
            "S8F_PUBLIC_SHA256": public_sha256,
            "S8F_OUTPUT": OUTPUT_IN_SANDBOX,
            "S8F_SPLIT": request.split,
        }
        env |= {name: os.environ[name] for name in request.env_names}
        mounts = [sandbox.Mount(public, CORPUS_IN_SANDBOX)]
        mounts += [sandbox.Mount(path, str(path)) for path in read_only]
        if candidate:
            mounts.append(sandbox.Mount(candidate, CANDIDATE_IN_SANDBOX))
        command = list(request.command)
        if request.endpoints:
            sockets = _socket_directory(scratch, request.endpoints)
            if (user := sandbox.host_user()) is not None:
                os.chown(sockets, user, user)  # the sandbox's user connects to the sockets in it
            ports = {name: FIRST_ENDPOINT_PORT + i for i, name in enumerate(request.endpoints)}
            env |= {f"S8F_ENDPOINT_{name}": f"http://127.0.0.1:{port}" for name, port in ports.items()}
            # read-only: connecting to a socket writes nothing, and the directory is on the host's disk
            mounts.append(sandbox.Mount(sockets, SOCKETS_IN_SANDBOX))
            if not Path(sys.base_prefix).is_relative_to("/usr"):
                mounts.append(sandbox.Mount(Path(sys.base_prefix), sys.base_prefix))
            interpreter = str(Path(sys.base_prefix, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}"))
            relays = [f"{ports[name]}={SOCKETS_IN_SANDBOX}/{name}.sock" for name in request.endpoints]
            # given as -c, not mounted: a mount's source would show the checkout's path in /proc/self/mountinfo
            relay = Path(__file__).with_name("relay.py").read_text()
            command = [interpreter, "-I", "-S", "-c", relay, *relays, "--", *command]
        progress.step(f"run {request.name!r} in the sandbox")
        proxy = None
        if request.endpoints:
            proxy = EndpointProxy(request.endpoints, sockets, log, request.limits.request_bytes)
        if proxy:
            proxy.__enter__()
        left = Leftovers(request.limits, most_bytes, run_dir / "submission.json")
        try:
            ending = sandbox.run(
                command, mounts=mounts, env=env, limits=request.limits, stdout_path=run_dir / "stdout.txt",
                stderr_path=run_dir / "stderr.txt", workdir=CANDIDATE_IN_SANDBOX if candidate else OUT_IN_SANDBOX,
                collect=left.collect,
            )  # fmt: skip
        finally:
            if proxy:
                proxy.__exit__(None, None, None)
        ended = datetime.now(UTC)
        ending.limit_hit = ending.limit_hit or left.limit_hit
    finally:
        if (scratch / "endpoints").is_symlink():  # the sockets' short directory (_socket_directory)
            remove_tree(Path(os.readlink(scratch / "endpoints")))
        remove_tree(scratch)  # whatever shape the candidate left it in

    outcome, message = _outcome(ending, left, most_bytes)
    if outcome not in ("graded", "unusable_submission"):  # what the candidate last said, if anything
        said = last_stderr_line(run_dir / "stderr.txt")
        if said is not None:
            message = f"{message}; its last line on stderr: {said}{_host_path_hint(request.command, said, read_only)}"
    progress.step("grade the submission")
    con = connect()
    report = None
    if outcome == "graded":
        try:
            grading.grade_database(answers, run_dir / "submission.json", con, split=request.split)
            report = grading.full_report(con)
            if not report["corpus_bound"]:
                outcome, message, report = "unusable_submission", "the submission is bound to another corpus", None
            elif request.created_after is not None:
                report["window"] = window_reports(con, dates)[0]
            if report is not None and semantic is not None:
                report["semantic"] = semantic_grading.grade_into(
                    con, semantic, run_dir / "submission.json", request.split, _file_sha256(answers))
                if request.created_after is not None:
                    report["window"]["semantic"] = semantic_member(con, dates)
        except (UnusableInput, duckdb.OutOfMemoryException, MemoryError, RecursionError) as exc:
            outcome, message, report = "unusable_submission", _ungradable(exc), None
    if report is None:  # in a fresh database: a grade that stopped half-way left some of its tables
        con.close()
        con = connect()
        run_steps(con, UNGRADED_STEPS)
    if report is None or "semantic" not in report:
        run_steps(con, NO_SEMANTIC_STEPS)
    meta = {
        "run_id": run_id, "name": request.name, "command": list(request.command),
        "candidate_sha256": tree_sha256(candidate), "public_sha256": public_sha256,
        "answers_sha256": _file_sha256(answers), "split": request.split, "started_at": started, "ended_at": ended,
        "wall_seconds": ending.wall_seconds, "cpu_seconds": ending.cpu_seconds,
        "peak_memory_bytes": ending.peak_memory_bytes, "exit_status": ending.exit_status, "outcome": outcome,
        "limit_hit": ending.limit_hit, "message": message, "time_limit_seconds": float(request.limits.wall_seconds),
        "memory_limit_bytes": request.limits.memory_bytes, "limits_enforced_by": ending.limits_enforced_by,
        "endpoints": list(request.endpoints), "run_dir": str(run_dir),
    }  # fmt: skip
    progress.step("record the run")
    with con:
        create_table(con, "run_meta", META_TYPES, [tuple(meta.values())])
        create_table(con, "run_request_log", REQUEST_COLUMNS, log.rows)
        clock.stage(con, run_id, dates, request.created_after, request.model_cutoff, cutoff_at)
        _record(con, request.runs_db)
    return RunResult(run_id, outcome, run_dir, meta, report)


META_TYPES = {
    "run_id": "VARCHAR", "name": "VARCHAR", "command": "VARCHAR[]", "candidate_sha256": "VARCHAR",
    "public_sha256": "VARCHAR", "answers_sha256": "VARCHAR", "split": "VARCHAR", "started_at": "TIMESTAMPTZ",
    "ended_at": "TIMESTAMPTZ", "wall_seconds": "DOUBLE", "cpu_seconds": "DOUBLE", "peak_memory_bytes": "BIGINT",
    "exit_status": "INTEGER", "outcome": "VARCHAR", "limit_hit": "VARCHAR", "message": "VARCHAR",
    "time_limit_seconds": "DOUBLE", "memory_limit_bytes": "BIGINT", "limits_enforced_by": "VARCHAR",
    "endpoints": "VARCHAR[]", "run_dir": "VARCHAR",
}  # fmt: skip


UNIX_PATH_BYTES = 107  # what a Unix socket's path may hold (sun_path, less its final NUL)


def _socket_directory(scratch: Path, endpoints: dict[str, str]) -> Path:
    """A private directory for the endpoints' sockets: in the scratch directory, or, where a
    long $TMPDIR would make a socket's path longer than the kernel takes, a short one in
    /tmp linked from it (removed with the scratch directory's link, below)."""
    longest = max(len(f"{name}.sock") for name in endpoints)
    sockets = scratch / "endpoints"
    if len(os.fsencode(sockets)) + 1 + longest <= UNIX_PATH_BYTES:
        sockets.mkdir(mode=0o700)
        return sockets
    short = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir="/tmp"))
    (scratch / "endpoints").symlink_to(short)
    return short


def _remove_abandoned_scratch() -> None:
    """Remove sandbox scratch directories whose runner is gone (killed before it could)."""
    for path in [*Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"), *Path("/tmp").glob(f"{SCRATCH_PREFIX}*")]:
        pid = path.name.removeprefix(SCRATCH_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and path.stat().st_uid == os.getuid():
            remove_tree(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Leftovers:
    """What the candidate left in the sandbox's file systems, taken while the sandbox is
    held after the command ended and no process of it runs (sandbox.run's collect): the
    submission's bytes, when it is a regular file within the limit, and the limits its
    writes reached. Nothing of the candidate's making may stop the run being recorded:
    whatever the file systems hold, this never raises."""

    def __init__(self, limits: Limits, most_bytes: int, copy_to: Path) -> None:
        self.limits, self.most_bytes, self.copy_to = limits, most_bytes, copy_to
        self.submitted_bytes: int | None = None
        self.limit_hit: str | None = None
        self.problem: tuple[str, str] | None = None  # the outcome and why, when the submission was not taken

    def collect(self, root: Path) -> None:
        try:
            self._limits(root)
            self._take(root / OUTPUT_IN_SANDBOX.lstrip("/"))
        except OSError as exc:  # the sandbox went meanwhile: nothing more is taken
            self.copy_to.unlink(missing_ok=True)
            self.submitted_bytes = None
            self.problem = ("no_submission", f"the sandbox's files could not be read: {exc.strerror or exc}")

    def _limits(self, root: Path) -> None:
        out = root / OUT_IN_SANDBOX.lstrip("/")
        if any(size >= self.limits.file_bytes for size in file_sizes(out)):
            self.limit_hit = "file_size"  # a program that ignores SIGXFSZ (Python does) gets EFBIG
        elif any(_full(root / path.lstrip("/")) for path in WRITABLE):
            self.limit_hit = "space"
        elif files_at(root) > self.limits.files:  # made after the last poll, just before the command ended
            self.limit_hit = "files"

    def _take(self, path: Path) -> None:
        """The submission, not through a link (O_NOFOLLOW), only a regular file's bytes, and
        at most the size checked (nothing of the candidate runs, so none can be added)."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file"
                self.problem = ("no_submission", f"the candidate wrote {OUTPUT_IN_SANDBOX} as {kind}")
                return
            self.submitted_bytes = status.st_size
            if status.st_size > self.most_bytes:
                return
            with open(self.copy_to, "wb") as copy:
                left = status.st_size
                while left and (chunk := os.read(fd, min(left, 2**20))):
                    copy.write(chunk)
                    left -= len(chunk)
            now = os.fstat(fd)
            if left or (now.st_size, now.st_mtime_ns) != (status.st_size, status.st_mtime_ns):
                self.copy_to.unlink()
                self.submitted_bytes = max(now.st_size, status.st_size)
                if self.submitted_bytes <= self.most_bytes:
                    self.submitted_bytes = None
                    self.problem = ("unusable_submission", f"{OUTPUT_IN_SANDBOX} changed while it was read")
        finally:
            os.close(fd)


def _full(path: Path) -> bool:
    """Whether one of the sandbox's file systems in memory is full (less than a page free)."""
    try:
        status = os.statvfs(path)
    except OSError:
        return False
    return status.f_bavail * status.f_frsize < 4096


def _ungradable(exc: BaseException) -> str:
    """Why a submission the candidate wrote could not be graded, for its run's record."""
    if isinstance(exc, UnusableInput):
        return printable(str(exc))  # it may quote the submission
    if isinstance(exc, RecursionError):
        return "the submission is nested too deeply to be read"
    return f"grading the submission ran out of memory within the limit {MEMORY_LIMIT_ENV}={memory_limit()}"


def _outcome(ending: sandbox.Ending, left: Leftovers, most_bytes: int) -> tuple[str, str | None]:
    if ending.limit_hit == "wall_time":
        return "timeout", "the candidate ran past the time limit and was killed"
    if ending.limit_hit == "memory":
        return "out_of_memory", "the candidate went past the memory limit and was killed"
    if ending.limit_hit:
        return "limit", f"the candidate hit the {ending.limit_hit.replace('_', ' ')} limit"
    if ending.exit_status != 0:
        return "failed", f"the candidate exited with status {ending.exit_status}"
    if not ending.collected:
        return "no_submission", ("the sandbox ended, or a process of the candidate could not be ended, before "
                                 f"{OUTPUT_IN_SANDBOX} could be taken")  # fmt: skip
    if left.problem is not None:
        return left.problem
    submitted_bytes = left.submitted_bytes
    if submitted_bytes is None:
        return "no_submission", f"the candidate wrote no {OUTPUT_IN_SANDBOX} (or not as a regular file)"
    if submitted_bytes > most_bytes:
        return "unusable_submission", (f"the submission is {submitted_bytes:,} bytes, over the submission limit of "
                                       f"{most_bytes:,} (--submission-limit); it was not read")  # fmt: skip
    return "graded", None


def _record(con: duckdb.DuckDBPyConnection, runs_db: Path) -> None:
    """Append the run's rows to the runs database in one transaction: a runner killed
    meanwhile leaves the database as it was (DuckDB's write-ahead log). Another runner
    holding the file is waited for."""
    wait_for_lock(runs_db, lambda: con.execute("ATTACH ? AS runs", [str(runs_db)]), _LOCK_WAIT_SECONDS)
    try:
        con.execute("BEGIN")
        run_steps(con, RUN_RECORD_STEPS)
        run_steps(con, CLOCK_RECORD_STEPS)
        run_steps(con, RUNS_MIGRATION_STEPS)
        con.execute("COMMIT")
    except duckdb.Error as exc:
        con.execute("ROLLBACK")
        raise UnusableInput(f"{runs_db}: cannot record the run: {exc}") from None
    finally:
        con.execute("DETACH runs")


def list_runs(runs_db: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The runs, newest first: the columns people compare."""
    if not runs_db.is_file():
        raise UnusableInput(no_runs_database(runs_db))
    try:
        con = connect(str(runs_db), read_only=True)
    except duckdb.Error as exc:
        raise json_given_for_database(runs_db, "--runs takes the runs database that `s8f-duck run` writes") or (
            UnusableInput(f"{runs_db}: not a usable runs database: {exc}")
        ) from None
    with con:
        if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'runs'").fetchall()[0][0]:
            raise UnusableInput(f"{runs_db}: no run is recorded in this database")
        cursor = con.execute(
            "SELECT run_id, name, split, outcome, quality_pass, exact_records, graded_records, "
            "false_positive_facts, false_negative_facts, aggregate_errors, citation_errors, "
            "round(wall_seconds, 2) AS wall_seconds, round(cpu_seconds, 2) AS cpu_seconds, "
            "round(peak_memory_bytes / 2^20, 1) AS peak_memory_mib, limit_hit, "
            "(SELECT count(*) FROM run_requests AS r WHERE r.run_id = runs.run_id) AS requests, "
            "(SELECT sum(total_tokens) FROM run_requests AS r WHERE r.run_id = runs.run_id) AS tokens, message "
            "FROM runs ORDER BY started_at DESC, run_id DESC"
        )
        names = [d[0] for d in cursor.description]
        return names, cursor.fetchall()


def summary(result: RunResult) -> str:
    m = result.record
    cost = f"{m['wall_seconds']:.2f} s wall, {m['cpu_seconds']:.2f} s CPU, {m['peak_memory_bytes'] / 2**20:.0f} MiB peak"
    line = f"run {result.run_id} ({printable(m['name'])}): {result.outcome}; {cost}"
    if result.grade is not None:
        line += "\n" + grading.summary(result.grade)
    elif m["message"]:
        line += f"\n{printable(m['message'])}; see {result.run_dir}"
    return line


WIDTH = 100  # the table `runs` prints fits a terminal this wide
SHOWN_OUTCOME = {"unusable_submission": "unusable"}  # (the why line under it says more)


def format_rows(names: Sequence[str], data: Sequence[tuple[Any, ...]], fmt: str) -> str:
    """The runs as JSON, CSV (every column) or a table WIDTH columns wide: the columns people
    compare (names cut to fit), and under a run that was not graded, why."""
    if fmt == "json":
        return json.dumps([dict(zip(names, row)) for row in data], default=str, indent=2)
    if fmt == "csv":  # (JSON escapes every control character itself)
        return csv_text(names, [tuple(printable(v) if isinstance(v, str) else v for v in row) for row in data])
    runs = [dict(zip(names, values)) for values in data]
    tokens = any(run["tokens"] for run in runs)

    def table(name_width: int) -> list[list[str]]:
        rows = [["run", "name", "split", "outcome", "exact", "FP/FN/agg/cit", "wall s", *(["tokens"] * tokens)]]
        for run in runs:
            graded = run["graded_records"] is not None
            errors = [run[k] for k in ("false_positive_facts", "false_negative_facts", "aggregate_errors",
                                       "citation_errors")]  # fmt: skip
            rows.append([
                run["run_id"], _clip(printable(run["name"]), name_width), run["split"],
                SHOWN_OUTCOME.get(run["outcome"], run["outcome"]),
                f"{run['exact_records']}/{run['graded_records']}" if graded else "",
                "/".join(map(str, errors)) if graded else "",
                "" if run["wall_seconds"] is None else f"{run['wall_seconds']:.2f}",
                *([f"{run['tokens'] or 0:,}"] * tokens),
            ])  # fmt: skip
        return rows

    name_width = 24
    lines = aligned(table(name_width)).splitlines()
    while name_width > 6 and max(len(line.rstrip()) for line in lines) > WIDTH:
        name_width -= 1
        lines = aligned(table(name_width)).splitlines()
    out = [lines[0].rstrip()]
    for run, line in zip(runs, lines[1:]):
        out.append(line.rstrip())
        if run["message"] and run["graded_records"] is None:
            out.append(_clip(f"  why: {printable(run['message'])}", WIDTH))
    return "\n".join(out)


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _host_path_hint(command: list[str], said: str, mounted: list[Path]) -> str:
    """Why a command naming a path of this machine finds nothing in the sandbox, which
    sees only its own directories and the mounts asked for."""
    if "not found" not in said and "No such file" not in said:
        return ""
    for arg in command:
        path = Path(arg)
        if path.is_absolute() and path.exists() and not any(path.is_relative_to(m) for m in mounted):
            return (f" ({arg} is a path on this machine, which the sandbox does not see: give the candidate's "
                    "directory as --candidate-dir DIR, seen at /candidate, or mount a path with --ro PATH)")
    return ""


def last_stderr_line(path: Path, most: int = 200) -> str | None:
    """The candidate's last non-empty stderr line, at most `most` characters, every
    character that is not printable escaped (its output is the candidate's: hostile)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 8192))
            tail = f.read()
    except OSError:
        return None
    lines = [line for line in tail.decode("utf-8", errors="replace").splitlines() if line.strip()]
    if not lines:
        return None
    return _clip(printable(lines[-1].strip()), most)
