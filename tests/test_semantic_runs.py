"""`run --semantic`: a candidate's answers to the rubric graded on the semantic bundle of
the adjudication tests and recorded per field (runs.run_semantic) and per record
(runs.run_semantic_results); the bundle is checked before the run and never mounted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from adjudicated import made_gold
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_PUBLIC_SHA256, needs_s8f, run_cli

from s8f_duck.reading.schemas import SUBMISSION_SCHEMA


@pytest.fixture(scope="module")
def semantic(packet: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
    return made_gold(packet, tmp_path_factory.mktemp("gold"))


def candidate(folder: Path, name: str, entries: list[dict[str, Any]]) -> Path:
    directory = folder / name
    directory.mkdir()
    (directory / "sub.json").write_text(json.dumps({"schema": SUBMISSION_SCHEMA, "corpus_sha256": S8F_PUBLIC_SHA256,
                                                    "answers": [], "semantic": entries}), encoding="utf-8")  # fmt: skip
    return directory


def run(db: Path, name: str, directory: Path, semantic: Path, *extra: str | Path) -> Any:
    return run_cli("run", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--runs", db, "--name", name,
                   "--semantic", semantic, "--candidate-dir", directory, *extra,
                   "--", "/bin/cp", "/candidate/sub.json", "/out/submission.json")  # fmt: skip


@needs_s8f
def test_a_run_records_its_semantic_grade(semantic: Path, tmp_path: Path) -> None:
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    db = tmp_path / "runs.duckdb"
    copied = candidate(tmp_path, "copied", [{"id": g["id"], "field": g["field"], "values": g["values"]}
                                            for g in bundle["gold"]])  # fmt: skip
    done = run(db, "gold-copied", copied, semantic)
    assert "graded" in done.stdout and "semantic kind: accuracy 1.000" in done.stdout, done.stdout + done.stderr
    first = {f["name"]: f["values"][0] for f in bundle["rubric"]}
    single = candidate(tmp_path, "single", [{"id": g["id"], "field": g["field"], "values": [first[g["field"]]]}
                                            for g in bundle["gold"]])  # fmt: skip
    assert "graded" in run(db, "first-label", single, semantic).stdout
    with duckdb.connect(str(db), read_only=True) as con:
        fields = con.execute("SELECT r.name, s.field, s.accuracy, s.records, s.semantic_sha256 FROM run_semantic AS s "
                             "JOIN runs AS r USING (run_id) ORDER BY r.started_at, s.field").fetchall()  # fmt: skip
        results = con.execute("SELECT r.name, count(*), count(*) FILTER (WHERE correct) FROM run_semantic_results "
                              "JOIN runs AS r USING (run_id) GROUP BY ALL ORDER BY 1").fetchall()  # fmt: skip
    test_gold = [g for g in bundle["gold"] if g["split"] == "test"]
    for name, field, accuracy, records, _ in fields:
        gold = [g for g in test_gold if g["field"] == field]
        assert records == len(gold)
        expected = 1.0 if name == "gold-copied" else sum(g["values"] == [first[field]] for g in gold) / len(gold)
        assert accuracy == pytest.approx(expected, abs=1e-6)
    assert {name for name, *_ in fields} == {"gold-copied", "first-label"}
    assert dict((name, (n, right)) for name, n, right in results)["gold-copied"] == (len(test_gold), len(test_gold))


@needs_s8f
def test_a_semantic_bundle_is_checked_before_the_run_and_never_mounted(semantic: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    other = tmp_path / "other.json"
    other.write_text(semantic.read_text(encoding="utf-8").replace('"answers_sha256": "', '"answers_sha256": "0'),
                     encoding="utf-8")  # fmt: skip
    directory = candidate(tmp_path, "c", [])
    done = run(db, "other", directory, other)
    assert done.returncode == 2 and "goes with another answer bundle" in done.stderr, done.stderr
    done = run(db, "mounted", semantic.parent, semantic)  # its folder as the candidate's
    assert done.returncode == 2 and "would show" in done.stderr and str(semantic) in done.stderr, done.stderr
    done = run_cli("run", "--public", semantic, "--answers", S8F_ANSWERS, "--runs", db, "--name", "swap",
                   "--", "/bin/true")  # fmt: skip
    assert done.returncode == 2 and "is a semantic answer bundle, not a public corpus" in done.stderr, done.stderr
    assert not db.exists() or not duckdb.connect(str(db), read_only=True).execute(
        "SELECT count(*) FROM runs").fetchone()[0]  # fmt: skip


@needs_s8f
def test_the_majority_baseline_takes_published_labels_and_refuses_test_ones(packet: Path, tmp_path: Path) -> None:
    """examples/majority_candidate.py: each field's most frequent label in a published labels
    file; a file that labels any test record is refused (test gold stays unreachable)."""
    import subprocess
    import sys

    from adjudicated import labelled, labels_file
    from conftest import REPO

    document = json.loads(packet.read_text(encoding="utf-8"))
    tune = {r["id"] for r in document["records"] if r["split"] == "tune"}
    entries = [e for e in labelled(packet, lambda k, f: f["values"][min(k % 3, len(f["values"]) - 1)])
               if e["id"] in tune]  # fmt: skip
    published = labels_file(tmp_path / "tune-labels.json", packet, "owner", entries)
    out = tmp_path / "submission.json"
    env = {"S8F_PUBLIC": str(S8F_PUBLIC), "S8F_OUTPUT": str(out), "S8F_SPLIT": "test", "S8F_PUBLIC_SHA256": S8F_PUBLIC_SHA256}
    script = [sys.executable, str(REPO / "examples" / "majority_candidate.py"), str(REPO / "examples/rubrics/triage.toml")]
    done = subprocess.run([*script, "--labels", str(published)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    semantic = json.loads(out.read_text(encoding="utf-8"))["semantic"]
    for field in document["rubric"]:
        counts: dict[str, int] = {}
        for e in entries:
            if e["field"] == field["name"]:
                counts[e["values"][0]] = counts.get(e["values"][0], 0) + 1
        most = max(counts, key=lambda v: (counts[v], -field["values"].index(v)))
        assert {tuple(e["values"]) for e in semantic if e["field"] == field["name"]} == {(most,)}
    test_ids = {r["id"] for r in json.loads(S8F_PUBLIC.read_text(encoding="utf-8"))["records"] if r["split"] == "test"}
    assert {e["id"] for e in semantic} == test_ids
    leaking = labels_file(tmp_path / "all-labels.json", packet, "owner", labelled(packet, lambda k, f: f["values"][0]))
    done = subprocess.run([*script, "--labels", str(leaking)], env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "publish no test labels" in done.stderr
