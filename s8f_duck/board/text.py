"""The leaderboard for people without a browser (an aligned table) and for scripts (JSON,
CSV): the same numbers as the page, from leaderboard.compute's document."""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from collections.abc import Sequence
from typing import Any

from s8f_duck.board import clock

SLICES = ("state", "labels", "references", "duplicate_targets", "scope_contradictions", "all")
RUN_NUMBERS = (
    "rank", "quality_pass", "graded_records", "exact_records", "false_positive_facts", "false_negative_facts",
    "aggregate_errors", "citation_errors", "wall_seconds", "cpu_seconds", "peak_memory_bytes", "requests",
    "prompt_tokens", "completion_tokens", "total_tokens",
)  # fmt: skip
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def to_json(board: dict[str, Any]) -> str:
    return json.dumps(board, indent=2, ensure_ascii=False)


def _value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def to_csv(board: dict[str, Any]) -> str:
    """One row per run and number. Scopes: run (its grade and cost), ranked (its rank, the
    score ranked by with its interval and n), rankable (every score it can be ranked on),
    separability (of the run's corpus and split, per score), slice, label,
    aggregate, semantic and semantic label (runs graded on adjudicated fields), and with
    --compare difference (F1, or a semantic field's accuracy, of the first run less the
    second's)."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(["run_id", "name", "split", "outcome", "scope", "key", "metric", "value", "low", "high"])
    runs = {run["run_id"]: run for run in board["runs"]}

    def put(run: dict[str, Any], scope: str, key: str, metric: str, *values: Any) -> None:
        cells = [_value(v) for v in values] + [""] * (3 - len(values))
        out.writerow([run["run_id"], run["name"], run["split"], run["outcome"], scope, key, metric, *cells])

    for run in board["runs"]:
        for metric in RUN_NUMBERS:
            put(run, "run", "", metric, run[metric])
        ranked = board["ranked_by"]["key"]  # the score ranked by, named in every row of it
        put(run, "ranked", ranked, "rank", run["rank_label"])
        put(run, "ranked", ranked, "value", run["ranked_value"], run["ranked_low"], run["ranked_high"])
        put(run, "ranked", ranked, "n", run["ranked_n"])
        put(run, "ranked", ranked, "too_few", run["ranked_too_few"])
    for r in board["rankable"]:
        put(runs[r["run_id"]], "rankable", r["key"], "value", r["value"], r["low"], r["high"])
        put(runs[r["run_id"]], "rankable", r["key"], "n", r["n"])
    for run in board["runs"]:  # each run with its corpus and split's separability
        for sep in next(g for g in board["groups"] if g["group_id"] == run["group_id"])["separability"]:
            put(run, "separability", _sep_key(sep), "separated", sep["separated"])
            put(run, "separability", _sep_key(sep), "pairs", sep["pairs"])
    for s in board["scores"]:
        run = runs[s["run_id"]]
        for metric in ("gold_facts", "submitted_facts", "true_positives", "false_positives", "false_negatives"):
            put(run, s["scope"], s["key"], metric, s[metric])
        for metric in ("precision", "recall", "f1"):
            put(run, s["scope"], s["key"], metric, s[metric], s[f"{metric}_low"], s[f"{metric}_high"])
    for a in board["aggregates"]:
        put(runs[a["run_id"]], "aggregate", a["aggregate"], "exact", a["exact"])
        put(runs[a["run_id"]], "aggregate", a["aggregate"], "differences", a["differences"])
    for s in board["semantic"]["scores"]:
        run = runs[s["run_id"]]
        put(run, "semantic", s["field"], "coverage", s["coverage"])
        for metric in ("accuracy", "macro_f1"):
            put(run, "semantic", s["field"], metric, s[metric], s[f"{metric}_low"], s[f"{metric}_high"])
        put(run, "semantic", s["field"], "ceiling", s["ceiling"], s["ceiling_low"], s["ceiling_high"])
        for metric in ("above_ceiling", "gold_coverage", "weak", "self_preference", "semantic_sha256", "policy"):
            put(run, "semantic", s["field"], metric, s[metric])
    for s in board["semantic"]["labels"]:
        for metric in ("precision", "recall"):
            put(runs[s["run_id"]], "semantic label", f"{s['field']}={s['label']}", metric, s[metric])
        put(runs[s["run_id"]], "semantic label", f"{s['field']}={s['label']}", "f1", s["f1"], s["f1_low"], s["f1_high"])
    clock.csv_rows(board, put, runs)
    if c := board["comparison"]:
        pair = {**runs[c["run_a"]], "name": f"{c['name_a']} - {c['name_b']}"}
        for d in c["differences"]:
            put(pair, "difference", f"{d['scope']}:{d['key']}", "f1_difference", d["difference"], d["low"], d["high"])
        for d in c["semantic_differences"]:
            put(pair, "difference", f"semantic:{d['field']}", "accuracy_difference", d["difference"], d["low"],
                d["high"])
    return buffer.getvalue()


def _sep_key(sep: dict[str, Any]) -> str:
    """A score's separability key; an adjudicated score's names its semantic bundle (digest
    and policy), since runs graded on different golds are never paired."""
    if not sep.get("bundle"):
        return str(sep["key"])
    sha, _, policy = sep["bundle"].partition(" ")
    return f"{sep['key']} on bundle {sha[:12]}" + (f" {policy}" if policy else "")


def _plain(text: Any) -> str:
    """A cell for the terminal: control characters (a newline in a run name) escaped."""
    return _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), "" if text is None else str(text))


def _grid(header: Sequence[str], body: Sequence[Sequence[Any]], right: Sequence[bool]) -> str:
    """An aligned table; columns marked in `right` are right-aligned (numbers)."""
    cells = [list(header)] + [[_plain(v) for v in row] for row in body]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    right = [*right, *[False] * (len(header) - len(right))]
    lines = ["  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _score(value: float | None, low: float | None = None, high: float | None = None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]" if low is not None and high is not None else f"{value:.3f}"


TOO_FEW = "too few to rank on"


def _sized(value: float | None, low: float | None, high: float | None, n: int | None, min_n: int) -> str:
    """A figure with its interval and its n (gold facts or records), marked where n is too
    small for the figure to rank on."""
    if value is None:
        return f"- n={n}" if n is not None else "-"
    return f"{_score(value, low, high)} n={n}" + (" *" if n is not None and n < min_n else "")


def _signed(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f} [{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else f"{value:+.3f}"


def verdict(difference: dict[str, Any]) -> str:
    if not difference["excludes_zero"]:
        return "no clear difference" if difference["difference"] is not None else "undefined"
    return "A better" if difference["difference"] > 0 else "B better"


WIDTH = 100  # the table fits a terminal this wide (every number is in --format json or csv)
SHOWN_OUTCOME = {"unusable_submission": "unusable"}


def group_title(group: dict[str, Any], runs: int) -> str:
    """A corpus and split's heading: runs are ranked only against the runs of the same."""
    graded = f", {group['records']} records graded" if group.get("records") else ""
    return f"Corpus {group['public_sha256'][:12]}…, {group['split']} split ({runs} run{'s' * (runs != 1)}{graded})"


def _runs_section(board: dict[str, Any]) -> str:
    """A table per corpus and split (ranks count within each), WIDTH columns wide: names
    cut to fit; the start, CPU, memory and requests are in --format json or csv."""
    tokens = any(r["total_tokens"] for r in board["runs"])
    header = ["rank", "name", "outcome", "pass", "exact", "FP", "FN", "agg/cit", "ranked on [95%] n", "wall s",
              *(["tokens"] * tokens)]  # fmt: skip
    min_n = board["min_n"]

    def body(members: list[dict[str, Any]], width: int) -> list[list[Any]]:
        names = _distinct_clips([r["name"] for r in members], width)
        return [
            [r["rank_label"], names[r["name"]], SHOWN_OUTCOME.get(r["outcome"], r["outcome"]),
             {True: "yes", False: "no", None: "-"}[r["quality_pass"]],
             "-" if r["graded_records"] is None else f"{r['exact_records']}/{r['graded_records']}",
             r["false_positive_facts"], r["false_negative_facts"],
             "" if r["aggregate_errors"] is None else f"{r['aggregate_errors']}/{r['citation_errors']}",
             _sized(r["ranked_value"], r["ranked_low"], r["ranked_high"], r["ranked_n"], min_n),
             f"{r['wall_seconds']:.2f}",
             *([r["total_tokens"]] * tokens)]
            for r in members
        ]  # fmt: skip

    right = [i == 0 or 4 <= i <= 7 or i >= 9 for i in range(len(header))]
    sections = []
    for group in board["groups"]:
        members = [r for r in board["runs"] if r["group_id"] == group["group_id"]]
        if not members:
            continue
        width = 24
        grid = _grid(header, body(members, width), right)
        while width > 6 and max(map(len, grid.splitlines())) > WIDTH:
            width -= 1
            grid = _grid(header, body(members, width), right)
        sections.append(group_title(group, len(members)) + "\n" + grid + "\n" + _group_notes(board, group))
    return "\n\n".join(_wrapped_title(section) for section in sections)


def _group_notes(board: dict[str, Any], group: dict[str, Any]) -> str:
    """Under a corpus and split's table: what the primary score averaged there, where the
    ranked score rests on too few facts, and separability per score."""
    notes = []
    left_out = [p["key"] for p in group["primary_slices"] if not p["included"]]
    if left_out:
        notes.append(f"derived: {', '.join(left_out)} left out (no gold fact in this split)")
    if any(r["ranked_too_few"] for r in board["runs"] if r["group_id"] == group["group_id"]):
        notes.append(f"* n below {board['min_n']}: {TOO_FEW}")
    in_group = [r for r in board["runs"] if r["group_id"] == group["group_id"]]
    bundles = list(dict.fromkeys(r["ranked_bundle"] for r in in_group if r["ranked_bundle"]))
    if bundles:  # an adjudicated score: ranked within each gold, never across
        shown = "; ".join(_sep_key({"key": "", "bundle": b}).removeprefix(" on ") + ": " + ", ".join(
            r["name"] for r in in_group if r["ranked_bundle"] == b) for b in bundles)  # fmt: skip
        notes.append(f"ranked within each semantic bundle (runs graded on different golds are never ranked nor "
                     f"paired together): {shown}")  # fmt: skip
    seps = group["separability"]
    if seps:
        shown = "; ".join(f"{_sep_key(s)} {s['separated']}/{s['pairs']}" for s in seps)
        notes.append(f"separability (pairs of runs the paired bootstrap separates, of all pairs): {shown}")
    else:
        notes.append("separability: fewer than two graded runs, no pair to separate")
    return "\n".join(textwrap.fill(note, WIDTH, subsequent_indent="  ") for note in notes)


def _wrapped_title(section: str) -> str:
    """A section with its first line (its title) wrapped to WIDTH."""
    title, _, rest = section.partition("\n")
    return textwrap.fill(title, WIDTH) + ("\n" + rest if rest else "")


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _distinct_clips(names: list[str], most: int) -> dict[str, str]:
    """Each name cut to `most` characters, or to the shortest prefix that keeps different
    names different (model-student-a, model-student-b): the column widens rather than
    show two runs under one name."""
    longest = max(map(len, names), default=0)
    while True:
        clips = {name: _clip(name, most) for name in names}
        if len(set(clips.values())) == len(clips) or most >= longest:
            return clips
        most += 1


def _slices_section(board: dict[str, Any], keys: tuple[str, ...], title: str) -> str:
    runs = {r["run_id"]: r for r in board["runs"]}
    several = len(board["groups"]) > 1
    picked = sorted((s for s in board["scores"] if s["scope"] == "slice" and s["key"] in keys),
                    key=lambda s: keys.index(s["key"]))  # fmt: skip

    def body(width: int) -> list[list[Any]]:
        return [
            [s["key"],
             _clip(runs[s["run_id"]]["name"], width) + (f" ({runs[s['run_id']]['split']})" if several else ""),
             s["gold_facts"], s["submitted_facts"], _score(s["precision"]), _score(s["recall"]),
             _score(s["f1"], s["f1_low"], s["f1_high"]), "too few" if s["gold_facts"] < board["min_n"] else ""]
            for s in picked  # the runs of each slice in rank order: the sort is stable
        ]  # fmt: skip

    header = ["slice", "run", "n gold", "sent", "prec.", "recall", "F1 [95%]", ""]
    width = 30
    grid = _grid(header, body(width), [False, False, True, True])
    while width > 6 and max(map(len, grid.splitlines())) > WIDTH:
        width -= 1
        grid = _grid(header, body(width), [False, False, True, True])
    return title + "\n" + grid


def _label_sections(board: dict[str, Any]) -> list[str]:
    cells = {(s["run_id"], s["key"]): s for s in board["scores"] if s["scope"] == "label"}
    sections = []
    for group in board["groups"]:
        members = [r for r in board["runs"] if r["group_id"] == group["group_id"] and r["graded_records"] is not None]
        if not group["labels"] or not members:
            continue
        where = f" ({group['split']} split of corpus {group['public_sha256'][:12]})" if len(board["groups"]) > 1 else ""
        body = [
            [label["label"], label["gold_records"],
             *(_score(c["f1"]) if (c := cells.get((r["run_id"], label["label"]))) else "-" for r in members),
             "too few" if label["gold_records"] < board["min_n"] else ""]
            for label in group["labels"]
        ]  # fmt: skip
        sections.append(
            f"Labels with at least {board['min_label_facts']} gold records{where}: F1 of each run by rank "
            "(intervals, precision and recall per label: --format json or csv)\n"
            + _grid(["label", "n gold", *(f"#{r['rank_label']}" for r in members), ""], body, [False, True])
        )
    return sections


def _aggregates_section(board: dict[str, Any]) -> str:
    names = {r["run_id"]: r["name"] for r in board["runs"]}
    order = list(dict.fromkeys(a["aggregate"] for a in board["aggregates"]))
    short = {"state_counts": "states", "label_counts": "labels", "newest_issue_ids": "newest ids",
             "most_recently_updated_issue_ids": "recently updated ids"}  # fmt: skip
    by_run: dict[str, dict[str, str]] = {}
    for a in board["aggregates"]:
        by_run.setdefault(a["run_id"], {})[a["aggregate"]] = "exact" if a["exact"] else f"{a['differences']} differ"
    body = [[names[run_id], *(cells.get(k, "-") for k in order)] for run_id, cells in by_run.items()]
    return "Aggregates (corpus-wide, graded on the test split)\n" + _grid(["run", *(short.get(k, k) for k in order)],
                                                                         body, [])


def _comparison_section(c: dict[str, Any], min_n: int) -> str:
    shown = {"slice": "{}", "label": "label {}", "primary": "{} (primary)"}
    body = [
        [shown.get(d["scope"], "{}").format(d["key"]), _score(d["f1_a"]), _score(d["f1_b"]),
         _signed(d["difference"], d["low"], d["high"]), d["n"], verdict(d) + (f", {TOO_FEW}" if d["n"] < min_n else "")]
        for d in c["differences"]
    ]  # fmt: skip
    return (
        f"Paired comparison: F1 of A = {c['name_a']} ({c['run_a']}) less F1 of B = {c['name_b']} ({c['run_b']}), "
        "on the same resampled records for both; n: gold facts\n"
        + _grid(["score", "F1 A", "F1 B", "difference [95% interval]", "n", "verdict"], body,
                [False, True, True, True, True])
    )


def _semantic_sections(board: dict[str, Any]) -> list[str]:
    """A section per semantic bundle (one gold per comparison): each field's accuracy beside
    the ceiling measured on the records graded, and the marks: ABOVE (the accuracy is above
    the ceiling's interval), WEAK (the gold was written with --allow-weak: weak on the
    field), SELF (the run asked a model that adjudicated the gold)."""
    runs = {r["run_id"]: r for r in board["runs"]}
    sections = []
    for bundle in board["semantic"]["bundles"]:
        scores = [s for s in board["semantic"]["scores"] if s["semantic_sha256"] == bundle["semantic_sha256"]]
        names = _distinct_clips([runs[s["run_id"]]["name"] for s in scores], 16)
        body = [
            [_clip(s["field"], 16), names[runs[s["run_id"]]["name"]], s["records"],
             _score(s["accuracy"], s["accuracy_low"], s["accuracy_high"]),
             s["ceiling_note"] and "n/a" or _score(s["ceiling"], s["ceiling_low"], s["ceiling_high"]),
             " ".join(m for m, on in (("ABOVE", s["above_ceiling"]), ("WEAK", s["weak"]),
                                      ("SELF", s["self_preference"]),
                                      ("too few", s["records"] < board["min_n"])) if on)]
            for s in sorted(scores, key=lambda s: s["field_index"])  # runs in rank order: stable
        ]  # fmt: skip
        weak = list(dict.fromkeys(f"{s['field']}: {s['weak']}" for s in sorted(scores, key=lambda s: s["field_index"])
                                  if s["weak"]))  # fmt: skip
        models = ", ".join(bundle["model_adjudicators"] or []) or "none"
        header = ["field", "run", "n records", "accuracy [95%]", "ceiling [95%]", "marks"]
        sections.append(
            f"Adjudicated fields graded on semantic bundle {bundle['semantic_sha256'][:12]} "
            f"({bundle['policy'] or 'unrecorded'} policy; model adjudicators: {models}): accuracy with its 95% "
            "interval beside the ceiling measured on the "
            "records graded (each adjudicator against the others' gold); ABOVE: above the ceiling's interval, WEAK: "
            "weak gold, SELF: the run asked a model adjudicator, too few: n below --min-n (coverage, macro-F1: --format "
            "json or csv)\n"
            + _grid(header, body, [False, False, True]) + "".join(f"\nweak gold, {w}" for w in weak))  # fmt: skip
    return sections


def _semantic_comparison_section(c: dict[str, Any]) -> str:
    body = [[d["field"], _score(d["accuracy_a"]), _score(d["accuracy_b"]), _signed(d["difference"], d["low"], d["high"]),
             d["records"], verdict(d)] for d in c["semantic_differences"]]  # fmt: skip
    return ("Paired comparison on the adjudicated fields: accuracy of A less accuracy of B; n: records\n"
            + _grid(["field", "accuracy A", "accuracy B", "difference [95% interval]", "n", "verdict"], body,
                    [False, True, True, True, True]))  # fmt: skip


def to_table(board: dict[str, Any]) -> str:
    """The runs, then each slice, the frequent labels, the aggregates; with --compare, the
    comparison only."""
    if board["comparison"]:
        c = board["comparison"]
        sections = [_comparison_section(c, board["min_n"])]
        if c["semantic_differences"]:
            sections.append(_semantic_comparison_section(c))
        return "\n\n".join(_wrapped_title(section) for section in sections)
    ranked, primary = board["ranked_by"], board["primary"]
    title = textwrap.fill(
        f"Leaderboard of {len(board['runs'])} run{'s' * (len(board['runs']) != 1)} in {board['runs_database']}, "
        f"ranked on {ranked['name']} "
        f"({ranked['key']}) within each corpus and split; runs the paired bootstrap does not separate share a rank "
        f"(1=). 95% bootstrap intervals over the graded records ({board['resamples']} resamples, seed "
        f"{board['seed']}), each with its n (gold facts or records); '*' or 'too few': n below {board['min_n']}, "
        f"{TOO_FEW}.",
        WIDTH,
    )
    sections = [title, _runs_section(board)]
    if board["scores"]:
        derived = tuple(primary["slices"])
        sections.append(_slices_section(
            board, (*derived, "all"),
            f"Derived slices (the primary score, {primary['key']}, is the mean of their F1) and all facts: "
            "precision, recall, F1 with its 95% interval (every interval: --format json or csv)"))
        sections.append(_slices_section(
            board, tuple(primary["input_checks"]),
            "Input checks: state and labels, which a candidate can copy from the public corpus; shown, never "
            "ranked on unless --rank-by names them"))  # fmt: skip
    sections += _label_sections(board)
    if board["aggregates"]:
        sections.append(_aggregates_section(board))
    if board["semantic"]["scores"]:
        sections += _semantic_sections(board)
    if board.get("clock", {}).get("cutoffs"):
        sections.append(clock.cutoff_section(board, _grid, _score, _signed))
    if board.get("clock", {}).get("months"):
        sections += clock.month_sections(board, _grid, _score, group_title)
    return "\n\n".join(_wrapped_title(section) for section in sections)


def _wrapped_title(section: str) -> str:
    """A section with its first line (its title) wrapped to WIDTH."""
    title, _, rest = section.partition("\n")
    return textwrap.fill(title, WIDTH) + ("\n" + rest if rest else "")
