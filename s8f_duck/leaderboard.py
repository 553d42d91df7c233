"""`s8f-duck leaderboard`: the recorded runs side by side, every slice with its uncertainty.

The statistics are sql/leaderboard/*.sql (steps.LEADERBOARD_STEPS), run on an in-memory
connection that attaches the runs database read-only; this module checks the request,
fetches the tables and renders them as a terminal table, JSON, CSV or one HTML page.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

import duckdb

from .errors import UnusableInput
from .steps import LEADERBOARD_STEPS, connect, rows, run_steps

SCHEMA = "s8f-duck-leaderboard/1"
RUN_FILES = ("stdout.txt", "stderr.txt", "submission.json")
SLICES = ("state", "labels", "references", "duplicate_targets", "scope_contradictions", "all")
_LOCK_WAIT_SECONDS = 30
_DATA_MARK = "__LEADERBOARD_DATA__"


@dataclass(frozen=True)
class Request:
    runs_db: Path
    resamples: int = 2000
    seed: int = 0
    min_label_facts: int = 5
    compare: tuple[str, str] | None = None


def run_root(runs_db: Path) -> Path:
    """Where `s8f-duck run` keeps each run's files: <stem>-runs/<run_id>/ beside the database."""
    return runs_db.with_name(runs_db.stem + "-runs")


def _attach(con: duckdb.DuckDBPyConnection, runs_db: Path) -> None:
    """Attach the runs database read-only, waiting a while for a runner that is writing it."""
    if not runs_db.is_file():
        raise UnusableInput(f"{runs_db}: no such runs database")
    deadline = time.monotonic() + _LOCK_WAIT_SECONDS
    while True:
        try:
            con.execute("ATTACH ? AS runs (READ_ONLY)", [str(runs_db)])
            break
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise UnusableInput(f"{runs_db}: cannot open the runs database: {exc}") from None
            time.sleep(0.2)
        except duckdb.Error as exc:
            raise UnusableInput(f"{runs_db}: not a usable runs database: {exc}") from None
    tables = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'runs'").fetchall()}
    missing = [t for t in ("runs", "run_records", "run_facts", "run_aggregates", "run_requests") if t not in tables]
    if "runs" in missing:
        raise UnusableInput(f"{runs_db}: no run is recorded in this database")
    if missing:
        raise UnusableInput(f"{runs_db}: not a runs database of `s8f-duck run`: no table {missing[0]}")


def _resolve(con: duckdb.DuckDBPyConnection, runs_db: Path, wanted: str) -> dict[str, Any]:
    """The run a --compare argument names: a run id, or a name given to exactly one run."""
    found = rows(con, f"SELECT * FROM leaderboard_runs WHERE run_id = {_literal(wanted)} ORDER BY run_index")
    if not found:
        found = rows(con, f"SELECT * FROM leaderboard_runs WHERE name = {_literal(wanted)} ORDER BY run_index")
    if not found:
        raise UnusableInput(f"--compare {wanted!r}: no run with that id or name in {runs_db}")
    if len(found) > 1:
        ids = ", ".join(r["run_id"] for r in found)
        raise UnusableInput(f"--compare {wanted!r}: {len(found)} runs have that name ({ids}); give a run id")
    run = found[0]
    if not run["graded"]:
        raise UnusableInput(f"--compare {wanted!r}: run {run['run_id']} was not graded ({run['outcome']}): nothing to compare")
    return run


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def compute(request: Request) -> dict[str, Any]:
    """Every number of the leaderboard, as one JSON-ready document."""
    if request.resamples < 1:
        raise UnusableInput(f"--resamples {request.resamples}: need at least one resample")
    if request.min_label_facts < 1:
        raise UnusableInput(f"--min-label-facts {request.min_label_facts}: need at least 1")
    con = connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        _attach(con, request.runs_db)
        try:
            run_steps(con, LEADERBOARD_STEPS[:1])
        except duckdb.Error as exc:
            raise UnusableInput(f"{request.runs_db}: not a runs database of `s8f-duck run`: {exc}") from None
        pair = None
        if request.compare:
            pair = [_resolve(con, request.runs_db, wanted) for wanted in request.compare]
            if pair[0]["group_id"] != pair[1]["group_id"]:
                a, b = (f"{r['run_id']} ({r['split']} split of corpus {r['public_sha256'][:12]})" for r in pair)
                raise UnusableInput(
                    f"--compare: {a} and {b} were not graded on the same corpus and split; "
                    "a paired comparison needs the same records"
                )
            con.execute("SET VARIABLE leaderboard_run_a = ?", [pair[0]["run_id"]])
            con.execute("SET VARIABLE leaderboard_run_b = ?", [pair[1]["run_id"]])
        for name, value in (
            ("resamples", request.resamples), ("seed", request.seed), ("min_label_facts", request.min_label_facts)
        ):  # fmt: skip
            con.execute(f"SET VARIABLE leaderboard_{name} = {int(value)}")
        run_steps(con, LEADERBOARD_STEPS[1:])
        return _document(con, request, pair)
    finally:
        con.close()


def _document(con: duckdb.DuckDBPyConnection, request: Request, pair: list[dict[str, Any]] | None) -> dict[str, Any]:
    root = run_root(request.runs_db)
    runs = rows(
        con,
        "SELECT rank, run_index, run_id, name, command, started_utc AS started_at, split, group_id, outcome, "
        "message, limit_hit, exit_status, quality_pass, graded_records, exact_records, false_positive_facts, "
        "false_negative_facts, aggregate_errors, citation_errors, aggregates_graded, wall_seconds, cpu_seconds, "
        "peak_memory_bytes, requests, prompt_tokens, completion_tokens, total_tokens, all_precision, all_recall, "
        "all_f1, all_f1_low, all_f1_high FROM leaderboard ORDER BY rank",
    )
    for run in runs:
        run["files"] = {
            name.split(".")[0]: str(root / run["run_id"] / name) if (root / run["run_id"] / name).is_file() else None
            for name in RUN_FILES
        }
    groups = rows(
        con,
        "SELECT group_id, any_value(public_sha256) AS public_sha256, any_value(answers_sha256) AS answers_sha256, "
        "any_value(split) AS split, (SELECT any_value(records) FROM graded_records AS g "
        "WHERE g.group_id = r.group_id) AS records FROM leaderboard_runs AS r GROUP BY group_id ORDER BY group_id",
    )
    labels = rows(con, "SELECT group_id, label, gold_records FROM frequent_labels ORDER BY group_id, gold_records DESC, label")
    for group in groups:
        group["labels"] = [{k: v for k, v in l.items() if k != "group_id"} for l in labels if l["group_id"] == group["group_id"]]
    scores = rows(
        con,
        "SELECT run_id, scope, key, gold_facts, submitted_facts, true_positives, false_positives, false_negatives, "
        '"precision", precision_low, precision_high, recall, recall_low, recall_high, f1, f1_low, f1_high, '
        "resamples FROM score_intervals JOIN leaderboard USING (run_id) ORDER BY rank, score",
    )
    aggregates = rows(
        con,
        "SELECT a.run_id, a.aggregate, a.exact, a.differences FROM runs.run_aggregates AS a "
        "JOIN leaderboard USING (run_id) ORDER BY rank, CASE a.aggregate WHEN 'state_counts' THEN 1 "
        "WHEN 'label_counts' THEN 2 WHEN 'newest_issue_ids' THEN 3 ELSE 4 END",
    )
    comparison = None
    if pair:
        comparison = {
            "run_a": pair[0]["run_id"], "name_a": pair[0]["name"], "run_b": pair[1]["run_id"], "name_b": pair[1]["name"],
            "differences": rows(
                con, "SELECT scope, key, f1_a, f1_b, difference, low, high, excludes_zero, resamples "
                "FROM paired_differences ORDER BY score",
            ),
        }  # fmt: skip
    return {
        "schema": SCHEMA,
        "runs_database": str(request.runs_db),
        "confidence": 0.95,
        "resamples": request.resamples,
        "seed": request.seed,
        "min_label_facts": request.min_label_facts,
        "groups": groups,
        "runs": runs,
        "scores": scores,
        "aggregates": aggregates,
        "comparison": comparison,
    }


# --- rendering -------------------------------------------------------------------------


def to_json(board: dict[str, Any]) -> str:
    return json.dumps(board, indent=2, ensure_ascii=False)


def _number(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def to_csv(board: dict[str, Any]) -> str:
    """One row per run and number: scope run (its grade and cost), slice, label,
    aggregate, or difference (with --compare: F1 of the first run less the second's)."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(["run_id", "name", "split", "outcome", "scope", "key", "metric", "value", "low", "high"])
    runs = {run["run_id"]: run for run in board["runs"]}

    def put(run: dict[str, Any], scope: str, key: str, metric: str, value: Any, low: Any = None, high: Any = None) -> None:
        out.writerow([run["run_id"], run["name"], run["split"], run["outcome"], scope, key, metric,
                      _number(value), _number(low), _number(high)])  # fmt: skip

    for run in board["runs"]:
        for metric in ("rank", "quality_pass", "graded_records", "exact_records", "false_positive_facts",
                       "false_negative_facts", "aggregate_errors", "citation_errors", "wall_seconds", "cpu_seconds",
                       "peak_memory_bytes", "requests", "prompt_tokens", "completion_tokens", "total_tokens"):  # fmt: skip
            put(run, "run", "", metric, run[metric])
    for score in board["scores"]:
        run = runs[score["run_id"]]
        for metric in ("gold_facts", "submitted_facts", "true_positives", "false_positives", "false_negatives"):
            put(run, score["scope"], score["key"], metric, score[metric])
        for metric in ("precision", "recall", "f1"):
            put(run, score["scope"], score["key"], metric, score[metric], score[f"{metric}_low"], score[f"{metric}_high"])
    for aggregate in board["aggregates"]:
        run = runs[aggregate["run_id"]]
        put(run, "aggregate", aggregate["aggregate"], "exact", aggregate["exact"])
        put(run, "aggregate", aggregate["aggregate"], "differences", aggregate["differences"])
    if board["comparison"]:
        comparison = board["comparison"]
        run = {**runs[comparison["run_a"]], "name": f"{comparison['name_a']} - {comparison['name_b']}"}
        for row in comparison["differences"]:
            put(run, "difference", f"{row['scope']}:{row['key']}", "f1_difference", row["difference"], row["low"], row["high"])
    return buffer.getvalue()


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _plain(text: Any) -> str:
    """A cell for the terminal: control characters (a newline in a run name) escaped."""
    return _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), "" if text is None else str(text))


def _grid(header: Sequence[str], body: Sequence[Sequence[Any]], right: Sequence[bool]) -> str:
    cells = [list(header)] + [[_plain(v) for v in row] for row in body]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right)).rstrip() for row in cells
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def _score(value: float | None, low: float | None = None, high: float | None = None) -> str:
    if value is None:
        return "-"
    if low is None or high is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _signed(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f} [{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else f"{value:+.3f}"


def _bytes(value: int | None) -> str:
    return "" if value is None else f"{value / 2**20:.0f}"


def to_table(board: dict[str, Any]) -> str:
    runs = board["runs"]
    names = {run["run_id"]: run["name"] for run in runs}
    several = len(board["groups"]) > 1
    sections = [
        f"Leaderboard of {len(runs)} runs in {board['runs_database']}: precision, recall and F1 with 95% "
        f"bootstrap intervals over the graded records ({board['resamples']} resamples, seed {board['seed']})"
    ]
    sections.append(_grid(
        ["rank", "name", "started", "split", "outcome", "pass", "exact", "FP", "FN", "agg err", "cit err",
         "F1 all facts", "wall s", "CPU s", "peak MiB", "requests", "tokens"],
        [[r["rank"], r["name"], r["started_at"], r["split"], r["outcome"],
          {True: "yes", False: "no", None: "-"}[r["quality_pass"]],
          f"{r['exact_records']}/{r['graded_records']}" if r["graded_records"] is not None else "-",
          r["false_positive_facts"], r["false_negative_facts"], r["aggregate_errors"], r["citation_errors"],
          _score(r["all_f1"], r["all_f1_low"], r["all_f1_high"]),
          f"{r['wall_seconds']:.2f}", f"{r['cpu_seconds']:.2f}", _bytes(r["peak_memory_bytes"]),
          r["requests"], r["total_tokens"]] for r in runs],
        [True, False, False, False, False, False, True, True, True, True, True, False, True, True, True, True, True],
    ))  # fmt: skip
    slices = sorted((s for s in board["scores"] if s["scope"] == "slice"), key=lambda s: SLICES.index(s["key"]))
    sections.append("Slices: precision, recall and F1 [95% interval]\n" + _grid(
        ["slice", "run", "gold", "submitted", "precision", "recall", "F1"],
        [[s["key"], names[s["run_id"]] + (f" ({_split(board, s['run_id'])})" if several else ""),
          s["gold_facts"], s["submitted_facts"], _score(s["precision"], s["precision_low"], s["precision_high"]),
          _score(s["recall"], s["recall_low"], s["recall_high"]), _score(s["f1"], s["f1_low"], s["f1_high"])]
         for s in slices],
        [False, False, True, True, False, False, False],
    ))  # fmt: skip
    ranks = {run["run_id"]: run["rank"] for run in runs}
    for group in board["groups"]:
        members = [r["run_id"] for r in runs if r["group_id"] == group["group_id"] and r["graded_records"] is not None]
        if not group["labels"] or not members:
            continue
        cells = {(s["key"], s["run_id"]): s for s in board["scores"] if s["scope"] == "label"}
        where = f" ({group['split']} split of corpus {group['public_sha256'][:12]})" if several else ""
        sections.append(
            f"Labels with at least {board['min_label_facts']} gold records{where}: F1 [95% interval] of each run "
            "(by rank; precision and recall per label: --format json or csv)\n" + _grid(
                ["label", "gold", *(f"#{ranks[m]}" for m in members)],
                [[label["label"], label["gold_records"],
                  *(_score(c["f1"], c["f1_low"], c["f1_high"]) if (c := cells.get((label["label"], m))) else "-"
                    for m in members)] for label in group["labels"]],
                [False, True, *([False] * len(members))],
            )
        )  # fmt: skip
    if board["aggregates"]:
        order = list(dict.fromkeys(a["aggregate"] for a in board["aggregates"]))
        by_run: dict[str, dict[str, str]] = {}
        for a in board["aggregates"]:
            by_run.setdefault(a["run_id"], {})[a["aggregate"]] = "exact" if a["exact"] else f"{a['differences']} differ"
        sections.append("Aggregates (corpus-wide, graded on the test split)\n" + _grid(
            ["run", *order], [[names[run_id], *(cells.get(k, "-") for k in order)] for run_id, cells in by_run.items()],
            [False] * (1 + len(order)),
        ))  # fmt: skip
    if board["comparison"]:
        c = board["comparison"]
        sections.append(
            f"Paired comparison: F1 of {c['name_a']} ({c['run_a']}) less F1 of {c['name_b']} ({c['run_b']}), "
            "same resampled records for both\n" + _grid(
                ["score", "F1 A", "F1 B", "difference [95% interval]", "verdict"],
                [[d["key"] if d["scope"] == "slice" else f"label {d['key']}", _score(d["f1_a"]), _score(d["f1_b"]),
                  _signed(d["difference"], d["low"], d["high"]), verdict(d)] for d in c["differences"]],
                [False, True, True, False, False],
            )
        )  # fmt: skip
    return "\n\n".join(sections)


def verdict(difference: dict[str, Any]) -> str:
    if not difference["excludes_zero"]:
        return "no clear difference" if difference["difference"] is not None else "undefined"
    return "A better" if difference["difference"] > 0 else "B better"


def _split(board: dict[str, Any], run_id: str) -> str:
    return next(r["split"] for r in board["runs"] if r["run_id"] == run_id)


# --- the page --------------------------------------------------------------------------


def _script_data(board: dict[str, Any]) -> str:
    """JSON that is safe inside <script type="application/json">: no '<', '>' or '&' can
    end the element or open a comment, whatever the run names hold."""
    text = json.dumps(board, ensure_ascii=False, separators=(",", ":"))
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def _csp_hash(template: str, tag: str) -> str:
    """The CSP source of the template's one inline <tag> element without attributes."""
    (body,) = re.findall(rf"<{tag}>(.*?)</{tag}>", template, flags=re.DOTALL)
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"


def page(board: dict[str, Any], html_path: Path) -> str:
    """The self-contained page: the template (package data) with the leaderboard inlined.
    Each run's files are linked relative to where the page is written."""
    template = resources.files("s8f_duck.data").joinpath("leaderboard.html").read_text(encoding="utf-8")
    base = Path(os.path.abspath(html_path)).parent
    runs = []
    for run in board["runs"]:
        links = {
            kind: quote(Path(os.path.relpath(os.path.abspath(path), base)).as_posix()) if path else None
            for kind, path in run["files"].items()
        }
        runs.append({**run, "files": links})
    data = _script_data({**board, "runs": runs, "runs_database": Path(board["runs_database"]).name})
    text = template.replace("__CSP_SCRIPT__", _csp_hash(template, "script")).replace("__CSP_STYLE__", _csp_hash(template, "style"))
    return text.replace(_DATA_MARK, data)
