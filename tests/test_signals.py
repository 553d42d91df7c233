"""Temporary files are private, in one directory per run and place, removed by the
command on SIGINT / SIGTERM / SIGHUP (exit 130 / 143 / 129, one line) and, after kill -9,
by the next command that looks there."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

import pytest
from processes import DEMO, cli, contents, freeze_args, one_line, outputs, start_patched, wait_for, work_directories


def _started(tmp_path: Path, fault: str = "stop-bind") -> tuple[Path, Path, dict[str, bytes | None], object]:
    """An old freeze at out, then a new one stopped midway (public corpus and answer bundle
    written to their temporary files, the work database open), its $TMPDIR tmp."""
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    assert cli(*freeze_args(DEMO, out, "old"), tmpdir=tmp).returncode == 0
    old = contents(outputs(out))
    marker = tmp_path / "stopped"
    process = start_patched([fault, str(marker)], *freeze_args(DEMO, out, "new"), tmpdir=tmp)
    wait_for(marker, process)
    return out, tmp, old, process


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_removes_the_temporary_files_and_exits_cleanly(
    sig: signal.Signals, status: int, tmp_path: Path
) -> None:
    out, tmp, old, process = _started(tmp_path)
    assert work_directories(out) and work_directories(tmp)  # there is something to remove
    process.send_signal(sig)
    assert process.wait(timeout=60) == status
    assert one_line(process.stderr.read()) == f"s8f-duck freeze: stopped by {sig.name}; its temporary files are removed"
    assert contents(outputs(out)) == old
    assert not work_directories(out, tmp)


def test_a_signal_is_handled_while_duckdb_computes(tmp_path: Path) -> None:
    out, tmp, old, process = _started(tmp_path, "stop-in-duckdb")
    time.sleep(0.5)  # inside the query by now
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 143
    assert time.monotonic() - started < 10  # not after the query (which never ends)
    one_line(process.stderr.read())
    assert contents(outputs(out)) == old
    assert not work_directories(out, tmp)


def _private(directory: Path) -> None:
    """Everything under a work directory is its owner's only."""
    for root, dirs, files in os.walk(directory):
        assert stat.S_IMODE(os.stat(root).st_mode) == 0o700, root
        for name in files:
            mode = stat.S_IMODE(os.stat(os.path.join(root, name)).st_mode)
            assert not mode & 0o077, (os.path.join(root, name), oct(mode))


@pytest.mark.parametrize("next_command", ["freeze", "grade"])
def test_after_kill_9_the_next_run_removes_what_was_left(next_command: str, tmp_path: Path) -> None:
    out, tmp, old, process = _started(tmp_path)
    process.kill()
    process.wait()
    left = work_directories(out, tmp)
    assert len(left) == 2  # beside the outputs (the new files) and in $TMPDIR (database, spill files)
    (beside,) = work_directories(out)
    assert (beside / "new" / "answers.json").stat().st_size > 0  # an answer bundle: why it must be private
    for directory in left:
        _private(directory)
    assert contents(outputs(out)) == old  # a run killed before its commit changes nothing
    if next_command == "freeze":
        result = cli(*freeze_args(DEMO, out, "again"), tmpdir=tmp)
    else:  # a command that only reads beside the outputs
        result = cli("grade", "--answers", out / "answers.json", "--submission", out / "answers.json",
                     "--output", tmp_path / "grade.json", tmpdir=tmp)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not work_directories(out, tmp)
    assert sorted(p.name for p in out.iterdir()) == ["answers.json", "public.json", "report.json"]


def test_a_live_run_s_directories_are_left_alone(tmp_path: Path) -> None:
    out, tmp, _, process = _started(tmp_path)
    left = work_directories(out, tmp)
    result = cli("grade", "--answers", out / "answers.json", "--submission", out / "answers.json",
                 "--output", tmp_path / "grade.json", tmpdir=tmp)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert set(left) <= set(work_directories(out, tmp))  # its lock is held: not a dead run's
    process.kill()
    process.wait()


def test_the_work_database_is_in_the_run_s_private_directory(tmp_path: Path) -> None:
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    marker = tmp_path / "stopped"
    process = start_patched(["stop-public", str(marker)], *freeze_args(DEMO, out, "demo"), tmpdir=tmp,
                            S8F_TEST_WORK_FILE="1")  # as for an input too large to work on in memory  # fmt: skip
    wait_for(marker, process)
    (run,) = work_directories(tmp)
    assert [p.name for p in run.rglob("*.duckdb")] == ["corpus.duckdb"]
    _private(run)
    process.kill()
    process.wait()
    result = cli("verify", "--public", out / "x.json", "--answers", out / "y.json", "--report", out / "z.json",
                 tmpdir=tmp)  # fmt: skip
    assert result.returncode == 2  # any command removes what a dead run left in $TMPDIR, and beside its paths
    assert not work_directories(out, tmp)
