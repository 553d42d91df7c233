"""`s8f-duck leaderboard` on a runs database of known S8f runs (conftest.leaderboard_runs):
its precision, recall and F1 per slice and per label equal what this file computes from
the submissions and the answer bundle in plain Python; every interval holds its point;
the same seed gives the same bytes."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
from conftest import FLIPPED_LABEL, HOSTILE_NAME, S8F_ANSWERS, run_cli
from sqlglot import exp

from s8f_duck.board import leaderboard as leaderboard_module
from s8f_duck.pipeline import steps
from s8f_duck.runs import runner

SLICES = ("state", "labels", "references", "duplicate_targets", "scope_contradictions")
PREFIXES = {
    "labels": "label:",
    "references": "ref:",
    "duplicate_targets": "dup:",
    "scope_contradictions": "contradiction:",
}


def facts(answer: dict[str, Any]) -> set[tuple[str, str]]:
    """One answer's (slice, fact) pairs, as the grader counts them: sets, per slice."""
    found = {("state", f"state:{answer['state']}")}
    for field, prefix in PREFIXES.items():
        found |= {(field, f"{prefix}{value}") for value in answer.get(field) or []}
    return found


def expected_scores(submission: Path, graded_split: str = "test") -> dict[tuple[str, str], dict[str, Any]]:
    """Per (scope, key): tp, fp, fn over the graded records, computed here from the files."""
    gold = {a["id"]: facts(a) for a in json.loads(S8F_ANSWERS.read_bytes())["answers"] if a["split"] == graded_split}
    sent: dict[str, set[tuple[str, str]]] = {}
    for answer in json.loads(submission.read_bytes())["answers"]:
        if answer["id"] in gold:
            sent[answer["id"]] = facts(answer)  # the last copy of an id counts
    label_records = Counter(fact for record in gold.values() for slice_, fact in record if slice_ == "labels")
    counts: dict[tuple[str, str], Counter[str]] = {}
    for record_id, record_gold in gold.items():
        record_sent = sent.get(record_id, set())
        for slice_, fact in record_gold | record_sent:
            kind = "tp" if (slice_, fact) in record_gold and (slice_, fact) in record_sent else (
                "fn" if (slice_, fact) in record_gold else "fp")  # fmt: skip
            keys = [("slice", slice_), ("slice", "all")]
            if slice_ == "labels" and label_records[fact] >= 5:
                keys.append(("label", fact.removeprefix("label:")))
            for key in keys:
                counts.setdefault(key, Counter())[kind] += 1
    result = {}
    for key, c in counts.items():
        tp, fp, fn = c["tp"], c["fp"], c["fn"]
        result[key] = {
            "gold_facts": tp + fn, "submitted_facts": tp + fp, "true_positives": tp,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None,
        }  # fmt: skip
    result["labels"] = {label.removeprefix("label:"): n for label, n in label_records.items() if n >= 5}
    return result


def leaderboard(db: Path, *args: str) -> dict[str, Any]:
    done = run_cli("leaderboard", "--runs", db, "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def board(leaderboard_runs: dict[str, Any]) -> dict[str, Any]:
    return leaderboard(leaderboard_runs["db"])


def by_name(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {run["name"]: run for run in board["runs"]}


def scores_of(board: dict[str, Any], name: str) -> dict[tuple[str, str], dict[str, Any]]:
    run_id = by_name(board)[name]["run_id"]
    return {(s["scope"], s["key"]): s for s in board["scores"] if s["run_id"] == run_id}


@pytest.mark.parametrize("name", ["sql-baseline", "missing-ten", "no-references", f"{FLIPPED_LABEL}-flipped"])
def test_slice_and_label_scores_equal_an_independent_count(
    leaderboard_runs: dict[str, Any], board: dict[str, Any], name: str
) -> None:
    expected = expected_scores(leaderboard_runs["submissions"][name])
    labels = expected.pop("labels")
    got = scores_of(board, name)
    wanted_keys = {("slice", s) for s in (*SLICES, "all")} | {("label", label) for label in labels}
    assert set(got) == wanted_keys
    for key in wanted_keys:
        want = expected.get(key, {"gold_facts": 0, "submitted_facts": 0, "true_positives": 0,
                                  "precision": None, "recall": None, "f1": None})  # fmt: skip
        for field, value in want.items():
            assert got[key][field] == pytest.approx(value, abs=1e-12) if value is not None else got[key][field] is None, (
                key, field)  # fmt: skip


def test_the_degradations_show_where_they_were_made(board: dict[str, Any]) -> None:
    """Each degraded run loses exactly on its slice or label and nowhere else."""
    missing = scores_of(board, "missing-ten")
    assert missing[("slice", "state")]["recall"] == pytest.approx(670 / 680)
    assert missing[("slice", "state")]["precision"] == 1
    no_refs = scores_of(board, "no-references")
    assert no_refs[("slice", "references")]["recall"] == 0 and no_refs[("slice", "references")]["precision"] is None
    assert no_refs[("slice", "labels")]["f1"] == 1
    flipped = scores_of(board, f"{FLIPPED_LABEL}-flipped")
    assert flipped[("label", FLIPPED_LABEL)]["f1"] == 0
    assert all(s["f1"] == 1 for (scope, key), s in flipped.items() if scope == "label" and key != FLIPPED_LABEL)
    assert all(s["f1"] == s["f1_low"] == s["f1_high"] == 1 for s in scores_of(board, "sql-baseline").values())


def test_every_interval_contains_its_point(board: dict[str, Any]) -> None:
    checked = 0
    for score in board["scores"]:
        for metric in ("precision", "recall", "f1"):
            point, low, high = score[metric], score[f"{metric}_low"], score[f"{metric}_high"]
            if point is None:
                continue
            assert low is not None and high is not None and low <= point <= high, (score, metric)
            checked += 1
    assert checked > 500
    assert all(score["resamples"] <= 2000 for score in board["scores"])


def test_a_record_level_rate_gets_the_interval_a_binomial_predicts(board: dict[str, Any]) -> None:
    """missing-ten misses the state of 10 of 680 records: its state recall is the share of
    records drawn that are not among them, whose 95% interval the normal approximation
    gives to within a few thousandths; a broken draw (too few records, the same ones in
    every resample) would not."""
    state = scores_of(board, "missing-ten")[("slice", "state")]
    p = 10 / 680
    spread = 1.96 * (p * (1 - p) / 680) ** 0.5
    assert state["recall_low"] == pytest.approx(1 - p - spread, abs=0.004)
    assert state["recall_high"] == pytest.approx(1 - p + spread, abs=0.004)


def test_the_timed_out_run_is_listed_without_a_grade(board: dict[str, Any]) -> None:
    run = by_name(board)[HOSTILE_NAME]
    assert run["outcome"] == "timeout" and run["graded_records"] is None and run["all_f1"] is None
    same = [r for r in board["runs"] if r["group_id"] == run["group_id"]]  # ranked within its corpus and split
    assert run["rank"] == len(same) and not scores_of(board, HOSTILE_NAME)
    assert run["files"]["submission"] is None and Path(run["files"]["stdout"]).is_file()


def test_runs_are_ranked_and_grouped_by_corpus_and_split(
    leaderboard_runs: dict[str, Any], board: dict[str, Any]
) -> None:
    """By default on the derived slices (a flipped label is an input check: it ties the
    baseline there); on F1 over all facts (--rank-by all-facts) as before."""
    ranked = [run["name"] for run in board["runs"]]
    assert ranked.index(f"{FLIPPED_LABEL}-flipped") < ranked.index("missing-ten") < ranked.index("no-references")
    assert by_name(board)[f"{FLIPPED_LABEL}-flipped"]["rank_label"] == by_name(board)["sql-baseline"]["rank_label"]
    ranked = [run["name"] for run in leaderboard(leaderboard_runs["db"], "--rank-by", "all-facts",
                                                 "--resamples", "200")["runs"]]  # fmt: skip
    assert ranked.index("sql-baseline") < ranked.index("missing-ten") < ranked.index(f"{FLIPPED_LABEL}-flipped")
    assert ranked.index(f"{FLIPPED_LABEL}-flipped") < ranked.index("no-references") < ranked.index(HOSTILE_NAME)
    assert sorted(g["split"] for g in board["groups"]) == ["test", "tune"]
    assert {g["split"]: g["records"] for g in board["groups"]} == {"test": 680, "tune": 108}
    tune = scores_of(board, "sql-baseline-tune")
    assert tune[("slice", "all")]["gold_facts"] == expected_scores(
        Path(board["runs"][0]["files"]["submission"]), "tune")[("slice", "all")]["gold_facts"]  # fmt: skip


def test_the_same_seed_gives_the_same_output_and_another_seed_other_intervals(leaderboard_runs: dict[str, Any]) -> None:
    db = leaderboard_runs["db"]
    first, second = (run_cli("leaderboard", "--runs", db, "--format", "json", "--resamples", "200") for _ in range(2))
    assert first.returncode == 0 and first.stdout == second.stdout
    other = json.loads(
        run_cli("leaderboard", "--runs", db, "--format", "json", "--resamples", "200", "--seed", "1").stdout
    )
    mine = json.loads(first.stdout)
    assert [s["f1"] for s in mine["scores"]] == [s["f1"] for s in other["scores"]]
    assert [s["f1_low"] for s in mine["scores"]] != [s["f1_low"] for s in other["scores"]]
    pages = [leaderboard_runs["dir"] / f"page-{i}.html" for i in range(2)]
    for page in pages:
        assert run_cli("leaderboard", "--runs", db, "--html", page, "--resamples", "200").returncode == 0
    assert pages[0].read_bytes() == pages[1].read_bytes()


def test_the_page_to_standard_output(leaderboard_runs: dict[str, Any]) -> None:
    """--html -: the page a file would hold, its links relative to the current directory."""
    db, directory = leaderboard_runs["db"], leaderboard_runs["dir"]
    page = directory / "sub" / "page.html"  # the directory is created
    assert run_cli("leaderboard", "--runs", db, "--html", page, "--resamples", "200", "-q").stdout == ""
    shown = run_cli("leaderboard", "--runs", db, "--html", "-", "--resamples", "200", cwd=page.parent)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == page.read_text(encoding="utf-8")
    assert shown.stderr.startswith("wrote standard output: ")
    assert not (page.parent / "-").exists()


def test_paired_comparison(leaderboard_runs: dict[str, Any], board: dict[str, Any]) -> None:
    db = leaderboard_runs["db"]
    compared = leaderboard(db, "--compare", "sql-baseline", "missing-ten")["comparison"]
    rows = {(d["scope"], d["key"]): d for d in compared["differences"]}
    primary = rows.pop(("primary", "derived"))  # the score ranked on by default, first
    assert compared["differences"][0]["key"] == "derived" and primary["difference"] > 0
    missing = scores_of(board, "missing-ten")
    assert set(rows) == set(missing)
    for key, row in rows.items():
        assert row["difference"] == pytest.approx(1 - missing[key]["f1"], abs=1e-12)
        assert row["low"] <= row["difference"] <= row["high"]
    assert rows[("slice", "all")]["excludes_zero"] and rows[("slice", "all")]["low"] > 0
    assert not rows[("slice", "duplicate_targets")]["excludes_zero"]  # no duplicate record was dropped
    # paired: the baseline scores 1 in every resample, so each difference is 1 - F1 of the
    # same resample, and its interval mirrors the run's own
    assert rows[("slice", "state")]["low"] == pytest.approx(1 - missing[("slice", "state")]["f1_high"], abs=1e-12)
    # a run against itself differs by exactly zero in every resample only when paired
    itself = leaderboard(db, "--compare", "no-references", "no-references", "--resamples", "200")["comparison"]
    assert all(d["low"] == d["high"] == 0 for d in itself["differences"] if d["difference"] is not None)
    table = run_cli("leaderboard", "--runs", db, "--compare", "sql-baseline", "missing-ten", "--resamples", "200")
    assert table.returncode == 0 and "A better" in table.stdout and "Paired comparison" in table.stdout


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        (("sql-baseline", "sql-baseline-tune"), "not graded on the same corpus and split"),
        (("sql-baseline", HOSTILE_NAME), "was not graded (timeout)"),
        (("sql-baseline", "nobody"), "'nobody': no run with that id or name"),
    ],
)
def test_a_comparison_that_cannot_be_made_is_refused(
    leaderboard_runs: dict[str, Any], pair: tuple[str, str], message: str
) -> None:
    done = run_cli("leaderboard", "--runs", leaderboard_runs["db"], "--compare", *pair)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_table_and_csv_carry_the_same_numbers(leaderboard_runs: dict[str, Any], board: dict[str, Any]) -> None:
    done = run_cli("leaderboard", "--runs", leaderboard_runs["db"], "--format", "csv")
    assert done.returncode == 0
    table = list(csv.DictReader(io.StringIO(done.stdout)))
    flipped = by_name(board)[f"{FLIPPED_LABEL}-flipped"]
    recall = next(r for r in table if r["run_id"] == flipped["run_id"] and r["scope"] == "slice"
                  and r["key"] == "labels" and r["metric"] == "recall")  # fmt: skip
    labels = scores_of(board, f"{FLIPPED_LABEL}-flipped")[("slice", "labels")]
    assert float(recall["value"]) == labels["recall"] and float(recall["low"]) == labels["recall_low"]
    assert {r["name"] for r in table} == set(leaderboard_runs["names"])
    text = run_cli("leaderboard", "--runs", leaderboard_runs["db"]).stdout
    assert f"{labels['f1']:.3f} [{labels['f1_low']:.3f}, {labels['f1_high']:.3f}]" in text
    assert f"{labels['recall']:.3f}" in text  # (recall's interval: in csv and json, so the table fits 100 columns)
    assert all(name[:12] in text for name in leaderboard_runs["names"])  # (cut to fit 100 columns where long)
    assert "Labels with at least 5 gold records" in text


def test_min_label_facts_picks_the_labels(leaderboard_runs: dict[str, Any]) -> None:
    board = leaderboard(leaderboard_runs["db"], "--min-label-facts", "100", "--resamples", "50")
    test = next(g for g in board["groups"] if g["split"] == "test")
    assert [label["label"] for label in test["labels"]] == ["class:dev", "enhancement", "research"]


@pytest.mark.parametrize(
    ("database", "args", "message"),
    [
        ("absent", (), "no such runs database"),
        ("junk", (), "not a usable runs database"),
        ("empty", (), "no run is recorded in this database"),
        ("runs", ("--resamples", "0"), "need at least one resample"),
        ("runs", ("--min-label-facts", "0"), "need at least 1"),
        ("runs", ("--seed", str(2**64)), "must fit in 64 bits"),
    ],
)
def test_unusable_input_exits_2_with_one_line(
    leaderboard_runs: dict[str, Any], tmp_path: Path, database: str, args: tuple[str, ...], message: str
) -> None:
    db = leaderboard_runs["db"] if database == "runs" else tmp_path / f"{database}.duckdb"
    if database == "junk":
        db.write_text("not a database")
    if database == "empty":
        duckdb.connect(str(db)).close()
    done = run_cli("leaderboard", "--runs", db, *args)
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_an_existing_page_is_left_alone_when_the_leaderboard_fails(tmp_path: Path) -> None:
    page = tmp_path / "leaderboard.html"
    page.write_text("old")
    done = run_cli("leaderboard", "--runs", tmp_path / "absent.duckdb", "--html", page)
    assert done.returncode == 2 and page.read_text() == "old" and list(tmp_path.iterdir()) == [page]


def test_the_files_are_looked_for_where_run_keeps_them() -> None:
    for db in (Path("/a/b/runs.duckdb"), Path("rel/x.y.duckdb")):
        assert leaderboard_module.run_root(db) == runner.run_root(db)


def test_each_leaderboard_step_reads_only_the_runs_database_and_earlier_steps() -> None:
    made: set[str] = set()
    for step in (*steps.LEADERBOARD_STEPS, *steps.LEADERBOARD_SEMANTIC_STEPS, *steps.LEADERBOARD_RANK_STEPS):
        statement = sqlglot.parse_one(steps.sql_path(step).read_text(encoding="utf-8"), read="duckdb")
        ctes = {cte.alias for cte in statement.find_all(exp.CTE)}
        for table in statement.expression.find_all(exp.Table):
            if table.catalog or table.db:
                assert (table.catalog or table.db) == "runs", (step, table.sql())
            elif isinstance(table.this, exp.Identifier) and table.name not in ctes:
                assert table.name in made, (step, table.name)
        made.add(Path(step).name)


def test_runs_are_ranked_within_their_corpus_and_split_in_a_table_of_100_columns(
    leaderboard_runs: dict[str, Any], board: dict[str, Any]
) -> None:
    """The tune run is not ranked among the test runs: each corpus and split is a section of
    its own, headed by its digest and split, ranks from 1 in each; every line fits 100."""
    text = run_cli("leaderboard", "--runs", leaderboard_runs["db"]).stdout
    assert max(len(line) for line in text.splitlines()) <= 100
    tune = by_name(board)["sql-baseline-tune"]
    assert tune["rank"] == 1 and by_name(board)["sql-baseline"]["rank"] == 1
    corpus = board["groups"][0]["public_sha256"][:12]
    test_at, tune_at = text.index(f"Corpus {corpus}…, test split"), text.index(f"Corpus {corpus}…, tune split")
    assert test_at < text.index("sql-baseline ") < tune_at < text.index("sql-baseline-tune")
