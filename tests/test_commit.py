"""A triple (and --db, --parquet) is committed as a unit: a rename that fails leaves the
old files; a process killed between renames leaves a journal that the next command
finishes or undoes, saying so; two commands writing the same paths take turns."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CLI
from processes import (
    DEMO,
    cli,
    contents,
    environment,
    freeze_args,
    is_one_triple,
    one_line,
    outputs,
    patched,
    start_patched,
    wait_for,
    work_directories,
)

ALL = ("db", "parquet")


def _old(out: Path, *extra: str) -> dict[str, bytes | None]:
    """A first freeze at out; its files' bytes."""
    out.mkdir(exist_ok=True)
    result = cli(*freeze_args(DEMO, out, "old", *extra), tmpdir=out.parent)
    assert result.returncode == 0, result.stderr
    return contents(outputs(out, *extra))


def _source(out: Path) -> str:
    return json.loads((out / "public.json").read_bytes())["source"]


@pytest.mark.parametrize("extra, rename", [*(((), k) for k in (1, 2, 3)), *((ALL, k) for k in (1, 2, 3, 4, 5))])
def test_a_failed_rename_leaves_every_old_output(extra: tuple[str, ...], rename: int, tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = _old(out, *extra)
    result = patched(["fail-rename", str(rename)], *freeze_args(DEMO, out, "new", *extra), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "cannot replace it: Input/output error (injected); every output is left as it was" in one_line(result.stderr)
    assert contents(outputs(out, *extra)) == old
    assert not work_directories(out, tmp_path)


def test_a_failed_rename_into_an_empty_directory_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = patched(["fail-rename", "3"], *freeze_args(DEMO, out, "new"), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert list(out.iterdir()) == []  # the two outputs renamed before the failure are gone again


def test_a_commit_that_can_be_neither_done_nor_undone_is_left_to_the_next_command(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _old(out)
    result = patched(["fail-renames-from", "2"], *freeze_args(DEMO, out, "new"), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "undoing the outputs already renamed failed too" in one_line(result.stderr)
    assert not is_one_triple(out) and len(work_directories(out)) == 1  # the journal is kept
    paths = outputs(out)
    again = cli("verify", "--public", paths["public"], "--answers", paths["answers"], "--report", paths["report"],
                tmpdir=tmp_path)  # fmt: skip
    assert "finished an interrupted commit" in again.stderr
    assert again.returncode == 0, again.stderr
    assert is_one_triple(out) and _source(out) == "new"
    assert not work_directories(out, tmp_path)


def test_an_immutable_output_fails_the_commit_and_the_others_are_restored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = _old(out)
    report = outputs(out)["report"]
    if subprocess.run(["chattr", "+i", str(report)], capture_output=True).returncode:
        pytest.skip("chattr +i is not possible here (needs root and a file system with the flag)")
    try:
        result = cli(*freeze_args(DEMO, out, "new"), tmpdir=tmp_path)
    finally:
        subprocess.run(["chattr", "-i", str(report)], check=True)
    assert result.returncode == 2, result.stderr
    assert f"{report}: cannot replace it: Operation not permitted" in one_line(result.stderr)
    assert contents(outputs(out)) == old
    assert not work_directories(out, tmp_path)


def _killed_between_renames(tmp_path: Path, rename: int, *extra: str) -> tuple[Path, dict[str, bytes | None]]:
    """out holding an old freeze (its bytes returned), and a new one killed (-9) just
    before its rename number `rename`."""
    out = tmp_path / "out"
    old = _old(out, *extra)
    marker = tmp_path / "stopped"
    process = start_patched(["stop-rename", str(rename), str(marker)], *freeze_args(DEMO, out, "new", *extra),
                            tmpdir=tmp_path)  # fmt: skip
    wait_for(marker, process)
    process.kill()
    process.wait()
    assert len(work_directories(out)) == 1  # the journal's
    return out, old


@pytest.mark.parametrize("rename", [1, 2, 3])
@pytest.mark.parametrize("next_command", ["verify", "freeze"])
def test_killed_between_renames_the_next_command_finishes_the_commit(
    rename: int, next_command: str, tmp_path: Path
) -> None:
    out, _ = _killed_between_renames(tmp_path, rename)
    assert _source(out) == ("new" if rename > 1 else "old")
    if rename == 2:
        assert not is_one_triple(out)  # mixed until finished: what the journal is for
    if next_command == "verify":
        paths = outputs(out)
        result = cli("verify", "--public", paths["public"], "--answers", paths["answers"], "--report", paths["report"],
                     tmpdir=tmp_path)  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert _source(out) == "new"
    else:
        result = cli(*freeze_args(DEMO, out, "third"), tmpdir=tmp_path)
        assert result.returncode == 0, result.stderr
        assert _source(out) == "third"
    assert "finished an interrupted commit" in result.stderr and "are the new files" in result.stderr
    assert is_one_triple(out)
    assert not work_directories(out, tmp_path)


def test_killed_between_renames_of_five_files_the_next_command_finishes_all(tmp_path: Path) -> None:
    out, _ = _killed_between_renames(tmp_path, 4, *ALL)  # the triple renamed, not the database and the Parquet file
    (work,) = work_directories(out)
    waiting = {name: (work / "new" / name).read_bytes() for name in ("corpus.duckdb", "public.parquet")}
    result = cli(*freeze_args(DEMO, out, "third"), tmpdir=tmp_path)  # its own outputs: the triple only
    assert result.returncode == 0, result.stderr
    assert "finished an interrupted commit" in result.stderr
    assert {name: (out / name).read_bytes() for name in waiting} == waiting
    assert is_one_triple(out) and _source(out) == "third"
    assert not work_directories(out, tmp_path)


def test_a_commit_that_cannot_be_finished_is_undone(tmp_path: Path) -> None:
    out, old = _killed_between_renames(tmp_path, 2)
    (work,) = work_directories(out)
    (work / "new" / "answers.json").unlink()  # a new file lost: the commit cannot be finished
    result = cli("grade", "--answers", out / "answers.json", "--submission", out / "answers.json",
                 "--output", tmp_path / "g.json", tmpdir=tmp_path)  # fmt: skip
    assert "undid an interrupted commit" in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    assert contents(outputs(out)) == old
    assert not work_directories(out, tmp_path)


def test_two_freezes_to_the_same_paths_take_turns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _old(out)
    marker, release, log = tmp_path / "paused", tmp_path / "release", tmp_path / "second.log"
    first = start_patched(["pause-rename", "2", str(marker), str(release)], *freeze_args(DEMO, out, "first"),
                          tmpdir=tmp_path)  # fmt: skip
    wait_for(marker, first)  # the first has renamed its public corpus, not yet the rest
    with open(log, "w") as stderr:
        second = subprocess.Popen([str(CLI), *map(str, freeze_args(DEMO, out, "second"))], stderr=stderr,
                                  env=environment(tmp_path))  # fmt: skip
        deadline = time.monotonic() + 120
        while "waiting for another s8f-duck command writing in" not in log.read_text():  # without the lock: it
            assert second.poll() is None and time.monotonic() < deadline, log.read_text()  # would interleave
            time.sleep(0.05)
        release.touch()
        assert first.wait(timeout=120) == 0, first.stderr.read()
        assert second.wait(timeout=120) == 0, log.read_text()
    assert is_one_triple(out) and _source(out) == "second"
    assert not work_directories(out, tmp_path)


def test_concurrent_freezes_leave_one_whole_triple(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    processes = [start_patched(["none"], *freeze_args(DEMO, out, f"run {i}"), tmpdir=tmp_path) for i in range(3)]
    assert [p.wait(timeout=300) for p in processes] == [0, 0, 0], [p.stderr.read() for p in processes]
    assert is_one_triple(out)
    assert not work_directories(out, tmp_path)
