"""`s8f-duck leaderboard`: the recorded runs side by side, every slice with its uncertainty.

The statistics are sql/leaderboard/*.sql (steps.LEADERBOARD_STEPS), run on an in-memory
connection that attaches the runs database read-only; this module checks the request,
and fetches the tables as one JSON-ready document, which leaderboard_text renders as a
terminal table, JSON or CSV and leaderboard_page as one HTML page.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.pipeline.steps import (
    LEADERBOARD_CLOCK_STEPS,
    LEADERBOARD_GOLD_STEPS,
    LEADERBOARD_NO_GOLD_STEPS,
    LEADERBOARD_NO_SEMANTIC_STEPS,
    LEADERBOARD_RANK_STEPS,
    LEADERBOARD_SEMANTIC_STEPS,
    LEADERBOARD_STEPS,
    NO_MISSED_FACTS_STEPS,
    connect,
    rows,
    run_steps,
)
from s8f_duck.safety.errors import UnusableInput, json_given_for_database
from s8f_duck.safety.locks import wait_for_lock
from s8f_duck.safety.paths import no_runs_database, run_root

SCHEMA = "s8f-duck-leaderboard/1"
RUN_FILES = ("stdout.txt", "stderr.txt", "submission.json")
_LOCK_WAIT_SECONDS = 30
SLICE_KEYS = ("state", "labels", "references", "duplicate_targets", "scope_contradictions")
INPUT_CHECKS = ("state", "labels")  # copied from the public corpus: shown, never ranked on by default
PRIMARY = "derived"
RANK_KEYS = (PRIMARY, *SLICE_KEYS, "all-facts", "adjudicated")
SCORE_NAMES = {
    PRIMARY: "mean F1 of the derived slices",
    "all-facts": "F1 over all facts",
    "adjudicated": "accuracy over the adjudicated fields",
    **{key: f"F1 of {key.replace('_', ' ')}" for key in SLICE_KEYS},
}


@dataclass(frozen=True)
class Request:
    runs_db: Path
    resamples: int = 2000
    seed: int = 0
    min_label_facts: int = 5
    compare: tuple[str, str] | None = None
    rank_by: str = PRIMARY
    min_n: int = 10
    latest: bool = False  # only the newest run of each name


def score_name(key: str) -> str:
    """What a rankable score is, in words (its key in the document)."""
    if key.startswith("adjudicated:"):
        return f"accuracy on the adjudicated field {key.removeprefix('adjudicated:')}"
    return SCORE_NAMES.get(key, key)


def _attach(con: duckdb.DuckDBPyConnection, runs_db: Path) -> tuple[bool, bool, bool]:
    """Attach the runs database read-only, waiting a while for a runner that is writing it;
    whether it has the tables of semantic grades, of the gold they rest on, and
    run_missed_facts (a database written before them has not)."""
    if not runs_db.is_file():
        raise UnusableInput(no_runs_database(runs_db))
    refused = json_given_for_database(runs_db, "--runs takes the runs database that `s8f-duck run` writes")
    if refused is not None:
        raise refused
    wait_for_lock(runs_db, lambda: con.execute("ATTACH ? AS runs (READ_ONLY)", [str(runs_db)]), _LOCK_WAIT_SECONDS,
                  unopened="not a usable runs database")  # fmt: skip
    tables = {
        name
        for (name,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'runs'").fetchall()
    }
    missing = [t for t in ("runs", "run_records", "run_facts", "run_aggregates", "run_requests") if t not in tables]
    if "runs" in missing:
        raise UnusableInput(f"{runs_db}: no run is recorded in this database")
    if missing:
        raise UnusableInput(f"{runs_db}: not a runs database of `s8f-duck run`: no table {missing[0]}")
    semantic = {"run_semantic", "run_semantic_results"} <= tables
    return semantic, {"run_semantic_gold", "run_request_models"} <= tables, "run_missed_facts" in tables


def _has_clock(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the runs database records the clock (runs/clock.py's tables)."""
    (found,) = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'runs' "
                           "AND table_name IN ('record_dates', 'run_clock')").fetchone()  # fmt: skip
    return found == 2


def _clock(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The leaderboard's clock member: per run with a model cutoff, its primary score before
    and after it; per run, its primary score by creation month."""
    cutoffs = rows(con, "SELECT c.* EXCLUDE (run_index), l.name, l.group_id FROM clock_scores AS c "
                        "JOIN leaderboard AS l USING (run_id) ORDER BY l.position")  # fmt: skip
    months = rows(con, "SELECT m.group_id, m.run_id, l.name, m.month, m.records, m.primary_score FROM clock_months "
                       "AS m JOIN leaderboard AS l USING (run_id) ORDER BY m.group_id, l.position, m.month")  # fmt: skip
    return {"score": "the mean F1 of references, duplicate_targets and scope_contradictions, slices "
                     "without gold left out", "cutoffs": cutoffs, "months": months}  # fmt: skip


def _candidates(con: duckdb.DuckDBPyConnection, runs_db: Path, wanted: str) -> list[dict[str, Any]]:
    """The runs a --compare argument names: the run of that id, else every run of that name."""
    cursor = con.execute(
        "SELECT * FROM leaderboard_runs WHERE run_id = $1 OR (name = $1 AND NOT EXISTS "
        "(SELECT 1 FROM leaderboard_runs WHERE run_id = $1)) ORDER BY run_index",
        [wanted],
    )
    names = [d[0] for d in cursor.description]
    found = [dict(zip(names, row)) for row in cursor.fetchall()]
    if not found:
        raise UnusableInput(f"--compare {wanted!r}: no run with that id or name in {runs_db}")
    return found


def _pick(wanted: str, found: list[dict[str, Any]]) -> dict[str, Any]:
    if len(found) > 1:
        ids = ", ".join(r["run_id"] for r in found)
        raise UnusableInput(f"--compare {wanted!r}: {len(found)} runs have that name ({ids}); give a run id")
    run = found[0]
    if not run["graded"]:
        why = f"run {run['run_id']} was not graded ({run['outcome']})"
        raise UnusableInput(f"--compare {wanted!r}: {why}: nothing to compare")
    return run


def _same_gold(con: duckdb.DuckDBPyConnection, pair: list[dict[str, Any]]) -> None:
    """Refuse a comparison of runs graded on different semantic bundles: one gold per
    comparison (a run not graded on one compares on the S8f facts alone)."""
    bundles = {
        run_id: (sha, policy)
        for run_id, sha, policy in con.execute(
            "SELECT run_id, any_value(s.semantic_sha256), any_value(g.policy) FROM runs.run_semantic AS s "
            "LEFT JOIN semantic_gold AS g USING (run_id) WHERE run_id IN (?, ?) GROUP BY run_id",
            [pair[0]["run_id"], pair[1]["run_id"]]).fetchall()
    }  # fmt: skip
    if len(bundles) == 2 and len(set(bundles.values())) == 2:
        a, b = (f"{r['run_id']} (semantic bundle {bundles[r['run_id']][0][:12]}, {bundles[r['run_id']][1]})"
                for r in pair)  # fmt: skip
        raise UnusableInput(f"--compare: {a} and {b} were graded on different semantic bundles; "
                            "a comparison needs one gold")  # fmt: skip


def _resolve_pair(con: duckdb.DuckDBPyConnection, runs_db: Path, compare: tuple[str, str]) -> list[dict[str, Any]]:
    """The two runs of --compare. A name with runs on several corpora or splits stands for
    its graded run on the corpus and split the other argument's runs share with it, when
    that leaves one run on each side."""
    found = [_candidates(con, runs_db, wanted) for wanted in compare]
    if any(len(runs) > 1 for runs in found):
        graded = [[r for r in runs if r["graded"]] for runs in found]
        shared = {r["group_id"] for r in graded[0]} & {r["group_id"] for r in graded[1]}
        narrowed = [[r for r in runs if r["group_id"] in shared] for runs in graded]
        if len(shared) == 1 and all(len(runs) == 1 for runs in narrowed):
            found = narrowed
    return [_pick(wanted, runs) for wanted, runs in zip(compare, found)]


def _check_rank_by(con: duckdb.DuckDBPyConnection, request: Request) -> str:
    """The key of the score --rank-by names: a slice, all-facts, derived, adjudicated, or an
    adjudicated field (its name, or adjudicated:NAME)."""
    fields = [f for (f,) in con.execute("SELECT DISTINCT key FROM semantic_points WHERE key LIKE 'adjudicated:%' "
                                        "ORDER BY key").fetchall()]  # fmt: skip
    wanted = request.rank_by
    key = wanted if wanted in RANK_KEYS or wanted in fields else f"adjudicated:{wanted}"
    if key == "adjudicated" and not fields or key not in (*RANK_KEYS, *fields):
        adjudicated = ["adjudicated", *(f.split(":", 1)[1] for f in fields)] if fields else []
        known = ", ".join([*RANK_KEYS[:-1], *adjudicated])
        none = wanted.startswith("adjudicated") and not fields
        why = "no run in the database was graded on adjudicated fields" if none else ""
        raise UnusableInput(f"--rank-by {wanted!r}: {why or 'not a score'}; one of: {known}")
    return key


def compute(request: Request) -> dict[str, Any]:
    """Every number of the leaderboard, as one JSON-ready document."""
    if request.resamples < 1:
        raise UnusableInput(f"--resamples {request.resamples}: need at least one resample")
    if request.min_label_facts < 1:
        raise UnusableInput(f"--min-label-facts {request.min_label_facts}: need at least 1")
    if request.min_n < 1:
        raise UnusableInput(f"--min-n {request.min_n}: need at least 1")
    if not -(2**63) <= request.seed < 2**63:
        raise UnusableInput(f"--seed {request.seed}: must fit in 64 bits")
    con = connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        semantic, gold, counts_missed = _attach(con, request.runs_db)
        con.execute(f"SET VARIABLE leaderboard_latest = {bool(request.latest)}")
        try:
            run_steps(con, LEADERBOARD_STEPS[:1])
            if semantic:
                run_steps(con, LEADERBOARD_GOLD_STEPS if gold else LEADERBOARD_NO_GOLD_STEPS)
        except duckdb.Error as exc:
            raise UnusableInput(f"{request.runs_db}: not a runs database of `s8f-duck run`: {exc}") from None
        pair = None
        if request.compare:
            pair = _resolve_pair(con, request.runs_db, request.compare)
            if pair[0]["group_id"] != pair[1]["group_id"]:
                a, b = (f"{r['run_id']} ({r['split']} split of corpus {r['public_sha256'][:12]})" for r in pair)
                raise UnusableInput(
                    f"--compare: {a} and {b} were not graded on the same corpus and split; "
                    "a paired comparison needs the same records"
                )
            if semantic:
                _same_gold(con, pair)
            con.execute("SET VARIABLE leaderboard_run_a = ?", [pair[0]["run_id"]])
            con.execute("SET VARIABLE leaderboard_run_b = ?", [pair[1]["run_id"]])
        for name, value in (
            ("resamples", request.resamples), ("seed", request.seed), ("min_label_facts", request.min_label_facts),
            ("min_n", request.min_n),
        ):  # fmt: skip
            con.execute(f"SET VARIABLE leaderboard_{name} = {int(value)}")
        try:
            if not counts_missed:  # every gold fact is listed in run_facts
                run_steps(con, NO_MISSED_FACTS_STEPS)
            run_steps(con, [s for s in LEADERBOARD_STEPS[1:] if counts_missed or s != "leaderboard/missed_facts"])
            run_steps(con, LEADERBOARD_SEMANTIC_STEPS if semantic else LEADERBOARD_NO_SEMANTIC_STEPS)
        except duckdb.Error as exc:  # e.g. out of memory for very many resamples
            raise UnusableInput(f"{request.runs_db}: cannot compute the leaderboard: {exc}") from None
        rank_by = _check_rank_by(con, request)
        con.execute("SET VARIABLE leaderboard_rank_by = ?", [rank_by])
        try:
            run_steps(con, LEADERBOARD_RANK_STEPS)
            clock = _has_clock(con)
            if clock:
                run_steps(con, LEADERBOARD_CLOCK_STEPS)
        except duckdb.Error as exc:
            raise UnusableInput(f"{request.runs_db}: cannot compute the leaderboard: {exc}") from None
        document = _document(con, request, pair, semantic, rank_by)
        if clock:  # (a database written before the clock was recorded has no such member)
            document["clock"] = _clock(con)
        return document
    finally:
        con.close()


def _document(
    con: duckdb.DuckDBPyConnection, request: Request, pair: list[dict[str, Any]] | None, semantic: bool, rank_by: str
) -> dict[str, Any]:  # fmt: skip
    root = run_root(request.runs_db)
    runs = rows(
        con,
        "SELECT rank, rank_shared, rank || CASE WHEN rank_shared THEN '=' ELSE '' END AS rank_label, "
        "ranked_value, ranked_low, ranked_high, ranked_n, ranked_too_few, ranked_bundle, run_index, run_id, name, "
        "command, "
        "started_utc AS started_at, split, group_id, outcome, "
        "message, limit_hit, exit_status, quality_pass, graded_records, exact_records, false_positive_facts, "
        "false_negative_facts, aggregate_errors, citation_errors, aggregates_graded, wall_seconds, cpu_seconds, "
        "peak_memory_bytes, requests, prompt_tokens, completion_tokens, total_tokens, all_precision, all_recall, "
        "all_f1, all_f1_low, all_f1_high FROM leaderboard ORDER BY position",
    )
    for run in runs:  # what `s8f-duck run` kept of it, where it still is
        files = {name.split(".")[0]: root / run["run_id"] / name for name in RUN_FILES}
        run["files"] = {kind: str(path) if path.is_file() else None for kind, path in files.items()}
    groups = rows(
        con,
        "SELECT group_id, any_value(public_sha256) AS public_sha256, any_value(answers_sha256) AS answers_sha256, "
        "any_value(split) AS split, "
        "(SELECT any_value(records) FROM graded_records AS g WHERE g.group_id = r.group_id) AS records, "
        "coalesce((SELECT list({'label': label, 'gold_records': gold_records} ORDER BY gold_records DESC, label) "
        "FROM frequent_labels AS f WHERE f.group_id = r.group_id), []) AS labels, "
        "coalesce((SELECT list({'key': key, 'gold_facts': gold_facts, 'included': included} ORDER BY score) "
        "FROM primary_slices AS p WHERE p.group_id = r.group_id), []) AS primary_slices, "
        "coalesce((SELECT list({'key': key, 'bundle': bundle, 'separated': separated, 'pairs': pairs} "
        "ORDER BY key, bundle) "
        "FROM separability AS s WHERE s.group_id = r.group_id), []) AS separability "
        "FROM leaderboard_runs AS r GROUP BY group_id ORDER BY group_id",
    )
    for group in groups:
        group["separability"] = sorted(group["separability"], key=lambda s: _key_order(s["key"]))
    rankable = rows(
        con,
        "SELECT run_id, key, bundle, value, low, high, n, too_few, resamples FROM rankable_points "
        "JOIN leaderboard USING (run_index) ORDER BY position",
    )
    rankable.sort(key=lambda r: _key_order(r["key"]))  # stable: runs stay in rank order within a score
    scores = rows(
        con,
        "SELECT run_id, scope, key, gold_facts, submitted_facts, true_positives, false_positives, false_negatives, "
        '"precision", precision_low, precision_high, recall, recall_low, recall_high, f1, f1_low, f1_high, '
        "resamples FROM score_intervals JOIN leaderboard USING (run_id) ORDER BY position, score",
    )
    aggregates = rows(
        con,
        "SELECT a.run_id, a.aggregate, a.exact, a.differences FROM runs.run_aggregates AS a "
        "JOIN leaderboard USING (run_id) ORDER BY position, CASE a.aggregate WHEN 'state_counts' THEN 1 "
        "WHEN 'label_counts' THEN 2 WHEN 'newest_issue_ids' THEN 3 ELSE 4 END",
    )
    semantic_scores = rows(
        con, "SELECT s.* EXCLUDE (run_index, group_id) FROM semantic_scores AS s JOIN leaderboard USING (run_id) "
             "ORDER BY position, field_index") if semantic else []  # fmt: skip
    semantic_labels = rows(
        con, "SELECT s.* EXCLUDE (run_index) FROM semantic_label_scores AS s JOIN leaderboard USING (run_id) "
             "ORDER BY position, field, gold DESC, label") if semantic else []  # fmt: skip
    semantic_runs = rows(
        con, "SELECT s.* EXCLUDE (run_index, group_id) FROM semantic_runs AS s JOIN leaderboard USING (run_id) "
             "ORDER BY position") if semantic else []  # fmt: skip
    bundles = rows(
        con, "SELECT semantic_sha256, any_value(policy) AS policy, "
             "any_value(model_adjudicators) AS model_adjudicators, list(run_id ORDER BY position) AS runs "
             "FROM semantic_runs JOIN leaderboard USING (run_id) GROUP BY semantic_sha256 "
             "ORDER BY min(position)") if semantic else []  # fmt: skip
    semantic_overall = rows(
        con, "SELECT s.* EXCLUDE (run_index) FROM semantic_overall AS s JOIN leaderboard USING (run_id) "
             "ORDER BY position") if semantic else []  # fmt: skip
    comparison = None
    if pair:
        comparison = {
            "run_a": pair[0]["run_id"], "name_a": pair[0]["name"],
            "run_b": pair[1]["run_id"], "name_b": pair[1]["name"],
            "differences": rows(
                con, "SELECT scope, key, f1_a, f1_b, difference, low, high, excludes_zero, resamples, n "
                "FROM paired_differences ORDER BY score",
            ),
            "semantic_differences": rows(con, "SELECT * EXCLUDE (field_index) FROM semantic_differences")
            if semantic else [],
        }  # fmt: skip
    return {
        "schema": SCHEMA,
        "runs_database": str(request.runs_db),
        "confidence": 0.95,
        "resamples": request.resamples,
        "seed": request.seed,
        "min_label_facts": request.min_label_facts,
        "min_n": request.min_n,
        "ranked_by": {"key": rank_by, "name": score_name(rank_by)},
        "primary": {"key": PRIMARY, "name": score_name(PRIMARY), "slices": list(SLICE_KEYS[2:]),
                    "input_checks": list(INPUT_CHECKS)},
        "groups": groups,
        "runs": runs,
        "scores": scores,
        "rankable": rankable,
        "aggregates": aggregates,
        "semantic": {"bundles": bundles, "runs": semantic_runs, "scores": semantic_scores, "labels": semantic_labels,
                     "overall": semantic_overall},
        "comparison": comparison,
    }


def _key_order(key: str) -> tuple[int, str]:
    """Scores in the order shown: the primary one, the derived slices, all facts, the
    input checks, then the adjudicated scores."""
    order = (PRIMARY, *SLICE_KEYS[2:], "all-facts", *INPUT_CHECKS, "adjudicated")
    return (order.index(key), "") if key in order else (len(order), key)
