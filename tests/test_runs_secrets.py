"""The runs database gives no test answer away, and mistaken runs can be removed.

Real `s8f-duck run`s of S8f submissions: an empty submission on test leaves no test gold
fact (but the labels, which the public corpus holds) in any table of the runs database nor
in any leaderboard output; the leaderboard's figures are those of a database that lists
every gold fact (as one written before did), which is still read as before and migrated by
the next run; `runs --delete` removes a run from every table and its run directory;
`leaderboard --latest` shows the newest run of each name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli, write_json

pytestmark = needs_s8f

PREFIXES = {"labels": "label:", "references": "ref:", "duplicate_targets": "dup:",
            "scope_contradictions": "contradiction:"}  # fmt: skip
HIDDEN_FACT = re.compile(r"(ref|dup|contradiction):\d+|state:(OPEN|CLOSED)")
COPY = ("--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")


def gold_facts(split: str) -> list[tuple[str, str, str]]:
    """(id, slice, fact) of every answer of the split, as the grader counts them."""
    found = []
    for answer in json.loads(S8F_ANSWERS.read_bytes())["answers"]:
        if answer["split"] != split:
            continue
        found.append((answer["id"], "state", f"state:{answer['state']}"))
        for field, prefix in PREFIXES.items():
            found += [(answer["id"], field, f"{prefix}{v}") for v in sorted(set(answer.get(field) or []))]
    return found


@pytest.fixture(scope="module")
def candidates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    root = tmp_path_factory.mktemp("candidates")
    done = run_cli("baseline", "--public", S8F_PUBLIC, "--output", root / "baseline.json")
    assert done.returncode == 0, done.stderr
    document = json.loads((root / "baseline.json").read_bytes())
    empty = {**document, "answers": [], "aggregates": {}}
    dirs = {}
    for name, submission in (("baseline", document), ("empty", empty)):
        (root / name).mkdir()
        dirs[name] = write_json(root / name / "sub.json", submission).parent
    return dirs


def run(db: Path, candidate: Path, name: str, split: str = "test") -> None:
    done = run_cli("run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "-q", "--name", name,
                   "--split", split, "--candidate-dir", candidate, *COPY)  # fmt: skip
    assert "graded" in done.stdout or done.returncode == 0, done.stdout + done.stderr


def run_ids(db: Path) -> dict[str, str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return dict(con.execute("SELECT name, run_id FROM runs ORDER BY started_at").fetchall())


def every_value(db: Path) -> dict[str, list[str]]:
    """Per table, each value of each row as text."""
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        return {t: [str(v) for row in con.execute(f'SELECT * FROM "{t}"').fetchall() for v in row] for t in tables}


def outputs(db: Path) -> dict[str, bytes]:
    """The leaderboard as text, CSV, JSON and page, run beside the database (relative paths)."""
    found = {}
    for form in ("table", "csv", "json"):
        done = run_cli("leaderboard", "--runs", db.name, "--format", form, "--resamples", "50", cwd=db.parent)
        assert done.returncode == 0, done.stderr
        found[form] = done.stdout.encode()
    done = run_cli("leaderboard", "--runs", db.name, "--html", "board.html", "--resamples", "50", "-q", cwd=db.parent)
    assert done.returncode == 0, done.stderr
    found["page"] = (db.parent / "board.html").read_bytes()
    return found


@pytest.fixture(scope="module")
def empty_db(candidates: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("empty") / "runs.duckdb"
    run(db, candidates["empty"], "empty")
    return db


@pytest.fixture(scope="module")
def mixed_db(candidates: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("mixed") / "runs.duckdb"
    run(db, candidates["baseline"], "baseline")
    run(db, candidates["empty"], "empty")
    run(db, candidates["baseline"], "baseline-tune", "tune")
    return db


def test_no_table_holds_a_test_gold_fact_of_an_empty_submission(empty_db: Path) -> None:
    values = every_value(empty_db)
    assert "run_facts" in values and "run_missed_facts" in values
    for table, texts in values.items():
        assert not [t for t in texts if HIDDEN_FACT.fullmatch(t)], table
    with duckdb.connect(str(empty_db), read_only=True) as con:
        missed = con.execute("SELECT slice, sum(missed) FROM run_missed_facts GROUP BY slice").fetchall()
        listed = con.execute("SELECT count(*) FROM run_facts WHERE slice <> 'labels'").fetchone()[0]
    expected: dict[str, int] = {}
    for _, slice_, _ in gold_facts("test"):
        if slice_ != "labels":
            expected[slice_] = expected.get(slice_, 0) + 1
    assert dict(missed) == expected and expected["references"] > 0  # counted, not listed
    assert listed == 0


def test_no_leaderboard_output_holds_a_test_gold_fact(empty_db: Path) -> None:
    for form, data in outputs(empty_db).items():
        assert not HIDDEN_FACT.search(data.decode()), form


def as_written_before(db: Path, to: Path) -> Path:
    """A copy of the database as it was written before run_missed_facts: every gold fact of
    a test run listed in run_facts, the missed ones too."""
    to.mkdir()
    copy = to / db.name
    shutil.copyfile(db, copy)
    shutil.copytree(db.with_name("runs-runs"), to / "runs-runs")  # the run files the leaderboard links
    gold = gold_facts("test")
    with duckdb.connect(str(copy)) as con:
        test_runs = [r for (r,) in con.execute("SELECT run_id FROM runs WHERE split = 'test'").fetchall()]
        for run_id in test_runs:
            listed = set(con.execute("SELECT id, fact FROM run_facts WHERE run_id = ?", [run_id]).fetchall())
            rows = [(run_id, i, s, f, True, False) for i, s, f in gold if (i, f) not in listed]
            if rows:
                con.executemany("INSERT INTO run_facts VALUES (?, ?, ?, ?, ?, ?)", rows)
        con.execute("DROP TABLE run_missed_facts")
    return copy


def test_leaderboard_figures_equal_those_of_every_gold_fact_listed(mixed_db: Path, tmp_path: Path) -> None:
    before = as_written_before(mixed_db, tmp_path / "before")
    with duckdb.connect(str(before), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM run_facts WHERE gold AND NOT submitted").fetchone()[0] > 4000
    now = outputs(mixed_db)
    assert outputs(before) == now  # a database written before is read as before, to the byte
    assert json.loads(now["json"])["runs"][1]["false_negative_facts"] == 4326


def test_a_database_written_before_is_migrated_and_a_deleted_run_is_gone(
    mixed_db: Path, candidates: dict[str, Path], tmp_path: Path
) -> None:
    before = as_written_before(mixed_db, tmp_path / "before")
    run(before, candidates["empty"], "mistaken")
    with duckdb.connect(str(before), read_only=True) as con:
        left = con.execute("SELECT count(*) FROM run_facts JOIN runs USING (run_id) WHERE split = 'test' "
                           "AND gold AND NOT submitted AND slice <> 'labels'").fetchone()[0]  # fmt: skip
    assert left == 0
    mistaken = run_ids(before)["mistaken"]
    run_dir = tmp_path / "before" / "runs-runs" / mistaken
    assert run_dir.is_dir()
    done = run_cli("runs", "--runs", before, "--delete", mistaken)
    assert done.returncode == 0, done.stderr
    assert f"removed run {mistaken} (mistaken):" in done.stdout and "run_missed_facts" in done.stdout
    assert not run_dir.exists()
    for table, texts in every_value(before).items():
        assert mistaken not in texts, table
    assert outputs(before) == outputs(mixed_db)


def test_delete_refuses_an_unknown_run_and_removes_nothing(mixed_db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "runs.duckdb"
    shutil.copyfile(mixed_db, copy)
    known = run_ids(copy)["empty"]
    done = run_cli("runs", "--runs", copy, "--delete", known, "no-such-run")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "no-such-run" in done.stderr and "nothing removed" in done.stderr
    assert known in run_ids(copy).values()


def test_latest_shows_the_newest_run_of_each_name(candidates: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    run(db, candidates["empty"], "mine")
    run(db, candidates["baseline"], "mine")
    boards = [run_cli("leaderboard", "--runs", db, "--format", "json", *more) for more in ((), ("--latest",))]
    for done in boards:  # a failure shows the command's own line
        assert done.returncode == 0, done.stderr
    every, latest = (json.loads(done.stdout)["runs"] for done in boards)
    assert len(every) == 2
    assert [r["run_id"] for r in latest] == [run_ids(db)["mine"]] and latest[0]["exact_records"] == 680
