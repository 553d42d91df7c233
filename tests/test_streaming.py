"""Writing the artifacts in ranges of numbers gives the same bytes as writing them at once."""

from __future__ import annotations

import hashlib
import json
import mmap
import shutil
import tempfile
import time
from pathlib import Path

import duckdb
import pytest
from conftest import REPO, run_cli

from s8f_duck.corpus import artifacts
from s8f_duck.pipeline import steps
from s8f_duck.reading import scan

DEMO = REPO / "experiments" / "demo" / "gh-issues-demo.json"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("demo")
    result = run_cli(
        "freeze", DEMO, "--source", "demo", "--db", out / "corpus.duckdb",
        "--public", out / "public.json", "--answers", out / "answers.json", "--report", out / "report.json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out / "corpus.duckdb", out / "public.json"


@pytest.fixture()
def con(demo_db: tuple[Path, Path]) -> duckdb.DuckDBPyConnection:
    connection = steps.connect()
    connection.execute(f"ATTACH '{demo_db[0]}' AS corpus")
    connection.execute("USE corpus")
    steps.run_steps(connection, ["macros"])
    return connection


@pytest.mark.parametrize("batch", [None, 1, 7, 64, 1000])
def test_ranges_write_the_same_public_bytes(
    con: duckdb.DuckDBPyConnection, demo_db: tuple[Path, Path], tmp_path: Path, batch: int | None
) -> None:
    public = demo_db[1]
    body = tmp_path / "chunks"
    writer = artifacts.HashingWriter(body)
    records, found = artifacts.stream_chunks(con, "public_json", writer, batch=batch, needles=['"url"', '"aggregates"'])
    writer.close()
    assert records == 64
    assert found == {'"url"': True, '"aggregates"': False}  # a key of every record; an answer field
    text = public.read_bytes()  # the records between the header and the footer
    assert text[text.index(b'"records": [') + len(b'"records": [') : text.rindex(b"\n  ]\n}")] == body.read_bytes()


@pytest.mark.parametrize("small_rows", [0, 10_000], ids=["arrow", "python strings"])
def test_small_and_large_views_are_written_alike(
    con: duckdb.DuckDBPyConnection, demo_db: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    small_rows: int,
) -> None:
    monkeypatch.setattr(artifacts, "SMALL_VIEW_ROWS", small_rows)
    writer = artifacts.HashingWriter(tmp_path / "answers")
    written = artifacts.stream_chunks(con, "answers_json", writer, needles=['"id"', "no such text"])
    writer.close()
    assert written == (64, {'"id"': True, "no such text": False})
    answers = (demo_db[1].parent / "answers.json").read_bytes()
    assert answers[answers.index(b'"answers": [') + len(b'"answers": [') : answers.rindex(b"\n  ],\n")] == (
        (tmp_path / "answers").read_bytes()
    )


def test_public_batch_follows_the_memory_limit(con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch) -> None:
    assert artifacts.public_batch(con) is None  # 64 small records fit in any budget
    assert artifacts.public_batch(con, text_bytes=2**20) is None  # as the caller estimates them
    assert artifacts.public_batch(con, text_bytes=2**40) == 1024  # a terabyte of texts: the smallest range
    monkeypatch.setattr(artifacts, "memory_limit_mb", lambda *_: 0.0001)
    assert artifacts.public_batch(con) == 1024


def test_scratch_is_removed_when_freeze_returns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the dump's parts and the work database file are deleted in the background
    from s8f_duck.corpus import freeze
    from s8f_duck.reading import split

    monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
    monkeypatch.setattr(steps, "FILE_SHARE", 2**40)
    monkeypatch.setattr(steps, "SMALL_INPUT_BYTES", 0)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    rmtree = shutil.rmtree  # slowly, so that a freeze returning before the removals ends is seen
    monkeypatch.setattr(shutil, "rmtree", lambda path, **kw: time.sleep(0.2) or rmtree(path, **kw))
    made: list[str] = []
    mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda **kw: made.append(kw["prefix"]) or mkdtemp(**kw))
    out = tmp_path / "out"
    out.mkdir()
    freeze.freeze(DEMO, out / "public.json", out / "answers.json", out / "report.json", "demo")
    assert {"s8f-duck-raw-", "s8f-duck-db-"} <= set(made)
    assert sorted(p.name[:15] for p in scratch.iterdir()) == ["s8f-duck-spill-"] * made.count("s8f-duck-spill-")


def test_blind_oracle_grade_is_the_grade_of_the_written_bundle(demo_db: tuple[Path, Path], tmp_path: Path) -> None:
    # freeze grades the bundle before the public corpus's digest is written into it
    out = demo_db[0].parent
    copy = tmp_path / "submission.json"  # another path: no same-file shortcut in grade
    copy.write_bytes((out / "answers.json").read_bytes())
    result = run_cli("grade", "--answers", out / "answers.json", "--submission", copy, "--output", tmp_path / "grade.json")
    assert result.returncode == 0, result.stderr
    grade = json.loads((tmp_path / "grade.json").read_text())
    report = json.loads((out / "report.json").read_text())
    assert report["blind_oracle_grade"] == {field: grade[field] for field in report["blind_oracle_grade"]}
    assert report["blind_oracle_grade"]["corpus_sha256"] == artifacts.file_sha256(demo_db[1])
    assert report["blind_oracle_grade"]["test_records"] > 0


def test_bind_answers_writes_only_the_digest(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    unbound = artifacts._answers_header(artifacts.ANSWERS_SCHEMA, artifacts.UNBOUND_SHA256) + '  "answers": []\n}\n'
    path.write_text(unbound)
    digest = "ab" * 32
    assert artifacts.bind_answers(path, digest) == artifacts.file_sha256(path)
    assert path.read_text() == unbound.replace(artifacts.UNBOUND_SHA256, digest)
    with pytest.raises(RuntimeError, match="no unbound corpus digest"):
        artifacts.bind_answers(path, digest)  # already bound: nothing is overwritten
    assert path.read_text() == unbound.replace(artifacts.UNBOUND_SHA256, digest)


@pytest.mark.parametrize("window", [scan.SCAN_BUFFER, mmap.ALLOCATIONGRANULARITY])
@pytest.mark.parametrize(
    "content",
    [b"", b"x", b"abc\xc3\xa9" * 100_000 + b"needle", b"." * (mmap.ALLOCATIONGRANULARITY - 3) + b"needle" + b"abc\xc3\xa9"],
)  # the last one across the first window's end
def test_file_digest_and_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, window: int) -> None:
    monkeypatch.setattr(scan, "SCAN_BUFFER", window)
    path = tmp_path / "f"
    path.write_bytes(content)
    assert artifacts.file_sha256(path) == hashlib.sha256(content).hexdigest()
    assert artifacts.file_contains(path, ["needle", "abcé", "nope"]) == {
        "needle": b"needle" in content, "abcé": "abcé".encode() in content, "nope": False
    }


@pytest.mark.parametrize(
    ("small_bytes", "one_thread_bytes", "file_share"),
    [
        (steps.SMALL_INPUT_BYTES, steps.ONE_THREAD_BYTES, steps.FILE_SHARE),
        (steps.SMALL_INPUT_BYTES, 0, steps.FILE_SHARE),
        (0, 0, steps.FILE_SHARE),
        (0, 0, 2**40),
    ],
    ids=[
        "plain in-memory database, one thread",
        "plain in-memory database, scanned by vectors",
        "attached in-memory database, scanned by vectors",
        "temporary database file, scanned by row groups",
    ],
)
def test_every_work_database_writes_the_same_bytes(
    demo_db: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_bytes: int,
    one_thread_bytes: int,
    file_share: int,
) -> None:
    # the fixture's freeze (with --db) worked in the database file it keeps
    from s8f_duck.corpus import freeze

    monkeypatch.setattr(steps, "SMALL_INPUT_BYTES", small_bytes)
    monkeypatch.setattr(steps, "ONE_THREAD_BYTES", one_thread_bytes)
    monkeypatch.setattr(steps, "FILE_SHARE", file_share)
    out = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    freeze.freeze(DEMO, out["public"], out["answers"], out["report"], "demo")
    for name, path in out.items():
        assert path.read_bytes() == (demo_db[0].parent / f"{name}.json").read_bytes(), name


@pytest.mark.parametrize(("file_share", "by_vectors"), [(steps.FILE_SHARE, True), (2**40, None)])
def test_in_memory_work_databases_and_their_cursors_scan_by_vectors(
    monkeypatch: pytest.MonkeyPatch, file_share: int, by_vectors: bool | None
) -> None:
    monkeypatch.setattr(steps, "FILE_SHARE", file_share)
    with steps.work_database(None, steps.SMALL_INPUT_BYTES) as con, steps.cursor(con) as other:
        for connection in (con, other):
            assert connection.execute("SELECT getvariable('s8f_duck_vector_scans')").fetchall() == [(by_vectors,)]


@pytest.mark.parametrize(("file_share", "extra"), [(steps.FILE_SHARE, 0), (2**40, 1)])
def test_a_database_file_loads_on_one_more_thread_uncompressed(
    monkeypatch: pytest.MonkeyPatch, file_share: int, extra: int
) -> None:
    monkeypatch.setattr(steps, "FILE_SHARE", file_share)
    settings = "SELECT current_setting('threads')::INT, current_setting('force_compression')"
    with steps.work_database(None, steps.SMALL_INPUT_BYTES) as con:
        (configured, compression) = con.execute(settings).fetchall()[0]
        with steps.loading_into_file(con):
            assert con.execute(settings).fetchall() == [(configured + extra, "uncompressed" if extra else compression)]
        assert con.execute(settings).fetchall() == [(configured, compression)]


def test_a_kept_database_file_holds_every_table(demo_db: tuple[Path, Path]) -> None:
    with duckdb.connect(str(demo_db[0]), read_only=True) as con:
        checks = con.execute("SELECT * FROM leak_checks").fetchall()
        assert checks and all(checks[0])
        assert con.execute("SELECT count(*) FROM raw_issues").fetchall() == [(64,)]


@pytest.mark.parametrize("input_bytes", [None, steps.SMALL_INPUT_BYTES], ids=["temporary file", "in memory"])
def test_leaving_a_temporary_work_file(input_bytes: int | None) -> None:
    from s8f_duck.safety import scratch

    with steps.work_database(None, input_bytes) as con:
        (path,) = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = 'corpus'").fetchall()[0]
        con.execute("CREATE TABLE kept AS SELECT 42 AS answer")
        con.execute("CREATE TABLE left_behind AS SELECT 1 AS x")
        steps.leave_work_file(con, ["kept"])
        assert con.execute("SELECT * FROM kept").fetchall() == [(42,)]
        attached = {name for (name,) in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()}
        assert ("corpus" in attached) == (input_bytes is not None)
        if input_bytes is None:  # closed and deleted
            scratch.wait_for_removals()
            assert not Path(path).parent.exists()
        else:  # nothing changed
            assert con.execute("SELECT * FROM left_behind").fetchall() == [(1,)]
