"""`s8f-duck serve`: held-out answers behind a grading service (a Starlette application
served by uvicorn). Submissions come in, scores go out, the answers never do.

The answer bundle is read by this process only. A test-split submission is answered with
the Ladder's score alone (sql/service/submissions.sql): no per-record or per-fact detail,
so resubmitting cannot mine the answers. A tune or train submission gets the full grade.
Every submission is stored in the service database before the answer is sent.
docs/service.md describes the routes, the teams file and what teams see.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import html
import json
import os
import re
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import duckdb
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from s8f_duck.grading import grade as grading
from s8f_duck.grading import semantic as semantic_grading
from s8f_duck.pipeline.steps import (
    SERVICE_BINDING_STEPS,
    SERVICE_LEADERBOARD_STEPS,
    SERVICE_STEPS,
    connect,
    create_table,
    rows,
    run_steps,
)
from s8f_duck.reading.scan import file_sha256
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.printable import printable
from s8f_duck.safety.memory import MEMORY_LIMIT_ENV, memory_limit
from s8f_duck.safety.scratch import warn
from s8f_duck.safety.trees import remove_tree
from s8f_duck.service.batches import GradeBatches
from s8f_duck.service.connections import BODY_SECONDS
from s8f_duck.service.ladder import check_semantic_ladder
from s8f_duck.service.teams import load_teams

SUBMISSION_ID = re.compile(r"^[0-9a-f]{32}$")
PENDING_TYPES = {
    "id": "VARCHAR", "team": "VARCHAR", "received_at": "TIMESTAMPTZ", "split": "VARCHAR", "sha256": "VARCHAR",
    "bytes": "BIGINT", "status": "VARCHAR", "message": "VARCHAR", "score": "DOUBLE", "grade_json": "VARCHAR",
}  # fmt: skip


@dataclass(frozen=True)
class ServiceConfig:
    answers: Path
    public: Path
    db: Path
    teams: dict[str, str]  # token SHA-256 (hex) -> team
    daily_limit: int = 5
    release_after: datetime | None = None
    ladder_step: float = 0.01
    max_bytes: int = 64 * 2**20
    teams_path: Path | None = None  # the teams file, read again when it changes
    semantic: Path | None = None  # a semantic answer bundle (adjudicate gold), graded beside the answers
    quiet: bool = False  # no line on stderr per submission


class Service:
    """The state behind the routes: the answers' bytes, the store, the teams."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self._teams = config.teams
        self._teams_stamp: tuple[int, int, int] | None = None
        if config.teams_path is not None:
            status = os.stat(config.teams_path)
            self._teams_stamp = (status.st_mtime_ns, status.st_size, status.st_ino)
        self.public_bytes = config.public.read_bytes()
        self.public_sha256 = hashlib.sha256(self.public_bytes).hexdigest()
        # The bundle is read once, whole and bound to this corpus before anything is served;
        # each submission then pays only for its own reading and the diff queries.
        self.grader = grading.Grader(config.answers)
        if self.grader.corpus_sha256 != self.public_sha256:
            self.grader.close()
            raise UnusableInput(f"{config.answers}: the answer bundle is for another public corpus than {config.public}")
        self.answers_bytes = config.answers.read_bytes()  # served after --release-after, if given
        self.answers_sha256 = hashlib.sha256(self.answers_bytes).hexdigest()
        if config.semantic is not None:  # refused now if it goes with another answer bundle, or is minable
            bundle, _ = semantic_grading.read_semantic(config.semantic, self.answers_sha256)
            (exact,) = self.grader.con.execute("SELECT count(*) FROM answers WHERE split = 'test'").fetchone()
            check_semantic_ladder(config.semantic, bundle.gold, exact, config.ladder_step)
        self.store = connect()  # in memory: the pending row; the store is attached
        try:
            self.store.execute("ATTACH ? AS service", [str(config.db)])
        except duckdb.Error as exc:
            raise UnusableInput(f"{config.db}: cannot open the service database: {exc}") from None
        self.store.execute("SET VARIABLE s8f_ladder_step = ?", [config.ladder_step])
        self._bind_store()
        self._store_lock = threading.Lock()
        self._team_locks: dict[str, asyncio.Lock] = {}
        self.in_flight: dict[str, int] = {}  # per team, submissions taken in and not yet stored
        # Grades run on worker threads, as many at once as there are cores: DuckDB uses every
        # core for each, and more at once only compete for the same cores.
        self.grading = anyio.CapacityLimiter(os.cpu_count() or 1)
        self.batches = GradeBatches(self.grader, self.grading, config.max_bytes)
        self.scratch = Path(tempfile.mkdtemp(prefix="s8f-duck-service-"))  # private (0700)
        create_table(self.store, "pending", PENDING_TYPES, [])
        run_steps(self.store, SERVICE_STEPS)  # creates the table when the store is new

    def _bind_store(self) -> None:
        """Bind a new store to this corpus, answer bundle and semantic bundle (or none); an
        existing store bound to others is refused, naming its binding."""
        semantic_sha256 = file_sha256(self.config.semantic) if self.config.semantic is not None else None
        given = (self.public_sha256, self.answers_sha256, semantic_sha256)
        columns = {"public_sha256": "VARCHAR", "answers_sha256": "VARCHAR", "semantic_sha256": "VARCHAR"}
        create_table(self.store, "binding_given", columns, [given])
        try:
            run_steps(self.store, SERVICE_BINDING_STEPS)
            (bound,) = self.store.execute(
                "SELECT public_sha256, answers_sha256, semantic_sha256 FROM service.store_binding"
            ).fetchall()
        except duckdb.Error as exc:
            self.store.close()
            self.grader.close()
            raise UnusableInput(f"{self.config.db}: cannot open the service database: {exc}") from None
        if tuple(bound) != given:
            self.store.close()
            self.grader.close()
            semantic = f"semantic bundle {bound[2]}" if bound[2] else "no semantic bundle (--semantic not given)"
            raise UnusableInput(
                f"{self.config.db}: the store of public corpus {bound[0]}, answer bundle {bound[1]} and {semantic}; "
                "these differ: give another --db (a store keeps one corpus's scores)"
            )

    def close(self) -> None:
        self.store.close()
        self.grader.close()
        remove_tree(self.scratch)

    def team_of(self, request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            return None
        digest = hashlib.sha256(token.strip().encode()).hexdigest()
        team = None
        for known, name in self.teams().items():  # every entry compared, in constant time
            if hmac.compare_digest(known, digest):
                team = name
        return team

    def teams(self) -> dict[str, str]:
        """The teams, read again when the teams file has changed (a team added by `s8f-duck
        team` while the service runs can submit at once); a file that no longer reads
        keeps the teams last read, and says so once on stderr."""
        path = self.config.teams_path
        if path is None:
            return self._teams
        try:
            status = os.stat(path)
            stamp = (status.st_mtime_ns, status.st_size, status.st_ino)
        except OSError:
            return self._teams
        if stamp != self._teams_stamp:
            self._teams_stamp = stamp
            try:
                self._teams = load_teams(path)
            except UnusableInput as exc:
                warn(f"the teams file no longer reads; the teams read before are kept: {exc}")
        return self._teams

    def used_today(self, team: str, now: datetime) -> int:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        with self._store_lock:
            return self.store.execute(
                "SELECT count(*) FROM service.submissions WHERE team = ? AND received_at >= ?", [team, midnight]
            ).fetchall()[0][0]

    async def grade(self, body: bytes, split: str) -> tuple[str, str | None, float | None, dict[str, Any] | None, int]:
        """(status, message, score, full grade, how many were graded together) of a submission
        body, graded here with the submissions waiting beside it (service/batches.py)."""
        directory = Path(tempfile.mkdtemp(dir=self.scratch))
        path = directory / "submission.json"
        try:
            path.write_bytes(body)
            graded, batch = await self.batches.grade(path, split, len(body))
            if graded.report is not None and self.config.semantic is not None and graded.report["corpus_bound"]:
                graded = await anyio.to_thread.run_sync(self._with_semantic, graded, split, limiter=self.grading)
        finally:
            remove_tree(directory)
        report = graded.report
        if report is None:
            return "unusable", self._unusable(graded.exception, path), None, None, batch
        if not report["corpus_bound"]:
            why = "submission: corpus_sha256 is not this service's public corpus (GET /corpus)"
            return "unusable", why, None, report, batch
        records = grading.graded_records(report)
        score = report["exact_records"] / records if records else 0.0
        if "semantic" in report:  # one score for the Ladder: the mean of the two shares
            score = (score + semantic_grading.overall_accuracy(report["semantic"])) / 2
        return "graded", None, score, report, batch

    def _with_semantic(self, graded: grading.Graded, split: str) -> grading.Graded:
        assert graded.report is not None and self.config.semantic is not None
        try:
            graded.report["semantic"] = semantic_grading.semantic_grade(
                self.config.semantic, graded.submission, split, self.answers_sha256
            )
        except Exception as exc:  # noqa: BLE001  (this submission's failure, not the service's)
            return grading.Graded(graded.submission, None, exc)
        return graded

    @staticmethod
    def _unusable(exc: BaseException | None, path: Path) -> str:
        if isinstance(exc, UnusableInput):
            return str(exc).replace(str(path), "submission")
        # the submission's own doing: answered, stored and counted like any unusable one
        if isinstance(exc, RecursionError):
            why = "nested too deeply to be read"
        elif isinstance(exc, duckdb.OutOfMemoryException | MemoryError):
            why = f"grading it needs more memory than this service gives a submission ({MEMORY_LIMIT_ENV}={memory_limit()})"
        else:  # what went wrong is told the operator, not the team (it may name the service's files)
            warn(f"a submission could not be graded: {type(exc).__name__}: {exc}".splitlines()[0])
            why = f"it could not be graded ({type(exc).__name__})"
        return f"submission: {why}"

    def store_submission(self, pending: dict[str, Any]) -> dict[str, Any]:
        with self._store_lock:
            create_table(self.store, "pending", PENDING_TYPES, [tuple(pending[k] for k in PENDING_TYPES)])
            self.store.execute("BEGIN")  # one row, durable before the answer is sent
            try:
                run_steps(self.store, SERVICE_STEPS)
                self.store.execute("COMMIT")
            except BaseException:
                self.store.execute("ROLLBACK")
                raise
            found = self.store.execute("SELECT * FROM service.submissions WHERE id = ?", [pending["id"]])
            names = [d[0] for d in found.description]
            return dict(zip(names, found.fetchone()))

    def submission(self, team: str, submission_id: str) -> dict[str, Any] | None:
        with self._store_lock:
            found = self.store.execute(
                "SELECT * FROM service.submissions WHERE id = ? AND team = ?", [submission_id, team]
            )
            names = [d[0] for d in found.description]
            row = found.fetchone()
        return dict(zip(names, row)) if row else None

    def leaderboard(self) -> list[dict[str, Any]]:
        with self._store_lock:
            run_steps(self.store, SERVICE_LEADERBOARD_STEPS)
            return rows(self.store, "SELECT * FROM leaderboard")

    def team_lock(self, team: str) -> asyncio.Lock:
        return self._team_locks.setdefault(team, asyncio.Lock())


def feedback(row: dict[str, Any], step: float) -> dict[str, Any]:
    """What a team is told of one of its submissions."""
    answer: dict[str, Any] = {
        "id": row["id"], "team": row["team"], "received_at": row["received_at"].astimezone(UTC).isoformat(),
        "split": row["split"], "sha256": row["sha256"], "status": row["status"],
    }  # fmt: skip
    if row["status"] != "graded":
        answer["message"] = row["message"]
    elif row["split"] == "test":
        answer |= {"score": row["shown_score"], "improved": row["improved"], "ladder_step": step,
                   "note": "held-out score of the Ladder: it changes only when a submission beats your best by more "
                           "than one step, and is rounded to the step; no per-record detail"}  # fmt: skip
    else:
        answer["grade"] = json.loads(row["grade_json"])
    return answer


async def _body(request: Request, most: int) -> bytearray | Response:
    """The request's body, at most `most` bytes, within BODY_SECONDS; or the answer to a
    body that is larger, slower, or dropped by the client (one line on stderr, no traceback)."""
    body = bytearray()
    try:
        with anyio.fail_after(BODY_SECONDS):
            async for chunk in request.stream():
                body += chunk
                if len(body) > most:
                    return _error(413, f"a submission is at most {most} bytes")
    except TimeoutError:
        return _error(408, f"the submission did not arrive within {BODY_SECONDS:.0f} s")
    except ClientDisconnect:
        client = request.client.host if request.client else "?"
        warn(f"an upload from {client} was dropped after {len(body)} bytes")
        return _error(400, "the submission's upload was dropped")
    return body


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def create_app(service: Service) -> Starlette:
    config = service.config

    async def index(_: Request) -> JSONResponse:
        return JSONResponse({
            "service": "s8f-duck grading service", "corpus_sha256": service.public_sha256,
            "routes": ["GET /corpus", "POST /submissions[?split=test|tune|train]", "GET /submissions/{id}",
                       "GET /leaderboard", "GET /leaderboard.json", "GET /answers"],
        })  # fmt: skip

    async def corpus(_: Request) -> Response:
        return Response(
            service.public_bytes, media_type="application/json",
            headers={"X-Corpus-SHA256": service.public_sha256, "ETag": f'"{service.public_sha256}"'},
        )  # fmt: skip

    async def submit(request: Request) -> Response:
        team = service.team_of(request)
        if team is None:
            return _error(401, "unknown or missing bearer token", {"WWW-Authenticate": "Bearer"})
        split = request.query_params.get("split", "test")
        if split not in grading.SPLITS:
            return _error(400, f"split: must be one of {', '.join(grading.SPLITS)}, not {split!r}")
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > config.max_bytes):
            return _error(413, f"a submission is at most {config.max_bytes} bytes")
        # The day's count and this submission's place in it are taken at once (a team's lock),
        # from the headers alone: a team at its limit is answered before its body is read.
        # The grade then runs beside the team's other submissions, counted while in flight.
        async with service.team_lock(team):
            now = datetime.now(UTC)
            used = await anyio.to_thread.run_sync(service.used_today, team, now)
            if used + service.in_flight.get(team, 0) >= config.daily_limit:
                tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
                return _error(
                    429, f"the daily limit of {config.daily_limit} submissions is reached; try again after "
                    f"{tomorrow.isoformat()}", {"Retry-After": str(int((tomorrow - now).total_seconds()) + 1)},
                )  # fmt: skip
            service.in_flight[team] = service.in_flight.get(team, 0) + 1
        stored = False
        try:
            body = await _body(request, config.max_bytes)
            if isinstance(body, Response):  # too large, too slow or dropped: not counted
                return body
            started = time.perf_counter()
            status, message, score, report, batch = await service.grade(bytes(body), split)
            pending = {
                "id": uuid.uuid4().hex, "team": team, "received_at": now, "split": split,
                "sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "status": status, "message": message,
                "score": score, "grade_json": json.dumps(report, default=str) if report else None,
            }  # fmt: skip
            async with service.team_lock(team):  # stored and no longer in flight at once
                row = await anyio.to_thread.run_sync(service.store_submission, pending)
                service.in_flight[team] -= 1
                stored = True
            if not config.quiet:  # (no score: the log may travel further than the answers)
                print(f"s8f-duck serve: {now:%Y-%m-%d %H:%M:%S}Z {printable(team)} {split} {row['id']} {status} "
                      f"({len(body)} bytes; graded in {time.perf_counter() - started:.2f} s, "
                      f"{batch} together)", file=sys.stderr, flush=True)  # fmt: skip
        finally:
            if not stored:
                service.in_flight[team] -= 1
        answer = feedback(row, config.ladder_step)
        return JSONResponse(answer, status_code=201 if status == "graded" else 400)

    async def one_submission(request: Request) -> Response:
        team = service.team_of(request)
        if team is None:
            return _error(401, "unknown or missing bearer token", {"WWW-Authenticate": "Bearer"})
        submission_id = request.path_params["submission_id"]
        row = SUBMISSION_ID.match(submission_id) and await anyio.to_thread.run_sync(
            service.submission, team, submission_id
        )
        if not row:
            return _error(404, "no such submission of your team")
        return JSONResponse(feedback(row, config.ladder_step))

    async def leaderboard_json(_: Request) -> JSONResponse:
        board = await anyio.to_thread.run_sync(service.leaderboard)
        return JSONResponse({"corpus_sha256": service.public_sha256, "ladder_step": config.ladder_step,
                             "teams": json.loads(json.dumps(board, default=str))})  # fmt: skip

    async def leaderboard_page(_: Request) -> HTMLResponse:
        board = await anyio.to_thread.run_sync(service.leaderboard)
        return HTMLResponse(render_leaderboard(board, service.public_sha256, config.ladder_step, config.semantic is not None))

    async def answers(_: Request) -> Response:
        now = datetime.now(UTC)
        if config.release_after is None or now < config.release_after:
            when = config.release_after.isoformat() if config.release_after else "never (no --release-after)"
            return _error(403, f"the answers are released after {when}")
        return Response(service.answers_bytes, media_type="application/json")

    return Starlette(
        routes=[
            Route("/", index),
            Route("/corpus", corpus),
            Route("/submissions", submit, methods=["POST"]),
            Route("/submissions/{submission_id}", one_submission),
            Route("/leaderboard", leaderboard_page),
            Route("/leaderboard.json", leaderboard_json),
            Route("/answers", answers),
        ]
    )


def _when(moment: datetime | None) -> str | None:
    """A time as people read it: to the second, in UTC."""
    return None if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def render_leaderboard(board: list[dict[str, Any]], corpus: str, step: float, semantic: bool = False) -> str:
    """The public leaderboard page: one self-contained HTML document, every value escaped."""
    what = ("the mean of the share of test records answered exactly and the share of their adjudicated fields "
            "answered right" if semantic else "the share of test records answered exactly")  # fmt: skip
    def cell(value: Any) -> str:
        return "<td>" + html.escape("" if value is None else str(value)) + "</td>"

    body = "".join(
        "<tr>" + cell(rank) + cell(row["team"]) + cell("" if row["score"] is None else f"{row['score']:.2f}")
        + cell(row["test_submissions"]) + cell(row["submissions"]) + cell(_when(row["improved_at"])) + "</tr>"
        for rank, row in enumerate(board, start=1)
    )  # fmt: skip
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>s8f-duck leaderboard</title>
<style>body{{font:15px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem}}
table{{border-collapse:collapse;width:100%}}th,td{{padding:.35rem .6rem;border-bottom:1px solid #ddd;text-align:left}}
th{{background:#f4f4f4}}@media (max-width:40rem){{td:nth-child(5),th:nth-child(5){{display:none}}}}</style></head>
<body><h1>Leaderboard</h1>
<p>Held-out score: {what}, as the Ladder shows it (rounded to {step:g};
it moves only when a team beats its best by more than that). Corpus <code>{html.escape(corpus[:16])}…</code></p>
<table><thead><tr><th>#</th><th>team</th><th>score</th><th>test submissions</th><th>all submissions</th>
<th>last improved</th></tr></thead><tbody>{body}</tbody></table></body></html>
"""
