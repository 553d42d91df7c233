"""Every failure is one line on stderr and an exit status: 2 for input or an environment
that cannot be used (a full disk, a read-only destination, memory, nesting, encoding),
1 only for verdicts, 3 for a bug (with a traceback only under S8F_DUCK_DEBUG=1). The
freeze's own blind-oracle grade fits where the freeze fits."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import issue, write_json
from processes import DEMO, cli, freeze_args, is_one_triple, one_line, outputs, patched, work_directories


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[object]:
    """mount(name, options): a small tmpfs at tmp_path/name (root only), unmounted after."""
    mounted: list[Path] = []

    def make(name: str, options: str) -> Path:
        point = tmp_path / name
        point.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True).returncode:
            pytest.skip("mounting a tmpfs needs root")
        mounted.append(point)
        return point

    yield make
    for point in mounted:
        subprocess.run(["umount", str(point)], check=False)


def test_a_full_disk_is_one_line_exit_2_and_leaves_nothing(mount: object, tmp_path: Path) -> None:
    small = mount("small", "size=64k")  # type: ignore[operator]  # the demo's three outputs take 60 KB
    result = cli(*freeze_args(DEMO, small, "t"), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    line = one_line(result.stderr)
    assert f"error: {small}/" in line and "No space left on device (the disk is full)" in line
    assert list(small.iterdir()) == []


def test_a_full_disk_under_duckdb_is_exit_2_too(mount: object, tmp_path: Path) -> None:
    small = mount("small", "size=64k")  # type: ignore[operator]
    out = tmp_path / "out"
    out.mkdir()
    result = cli(*freeze_args(DEMO, out, "t"), "--db", small / "corpus.duckdb", tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    line = one_line(result.stderr)
    assert f"{small}/corpus.duckdb" in line and "(the disk is full)" in line
    assert list(small.iterdir()) == [] and list(out.iterdir()) == []


def test_a_read_only_destination_is_one_line_exit_2(mount: object, tmp_path: Path) -> None:
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    assert cli(*freeze_args(DEMO, frozen, "t"), tmpdir=tmp_path).returncode == 0
    read_only = mount("ro", "size=1m,ro")  # type: ignore[operator]
    for args in (freeze_args(DEMO, read_only, "t"),
                 ["baseline", "--public", frozen / "public.json", "--output", read_only / "s.json"]):  # fmt: skip
        result = cli(*args, tmpdir=tmp_path)
        assert result.returncode == 2, result.stderr
        assert f"{read_only}: cannot write there: Read-only file system" in one_line(result.stderr)


def test_an_unwritable_destination_is_one_line_exit_2(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere: no permission error to provoke")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    result = cli(*freeze_args(DEMO, locked, "t"), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Permission denied" in one_line(result.stderr)


def test_an_empty_dump_with_no_minimum_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "empty.json"
    raw.write_text("[]")
    result = cli(*freeze_args(raw, tmp_path, "t"), "--min-records", "0", tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert one_line(result.stderr).startswith(f"s8f-duck freeze: error: {raw}: no issue records to freeze")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.json"]


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    return path


@pytest.mark.parametrize("command", ["freeze", "grade", "verify"])
def test_input_nested_100000_deep_is_exit_2_in_every_command(command: str, deep: Path, tmp_path: Path) -> None:
    args = {
        "freeze": freeze_args(deep, tmp_path, "t"),
        "grade": ["grade", "--answers", deep, "--submission", deep, "--output", tmp_path / "g.json"],
        "verify": ["verify", "--public", deep, "--answers", deep, "--report", deep],
    }[command]
    result = cli(*args, tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert str(deep) in one_line(result.stderr) or "nested too deeply" in result.stderr


def test_a_utf16_dump_is_exit_2(tmp_path: Path) -> None:
    raw = tmp_path / "utf16.json"
    raw.write_bytes(DEMO.read_text(encoding="utf-8").encode("utf-16"))  # with its byte-order mark
    result = cli(*freeze_args(raw, tmp_path, "t"), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    one_line(result.stderr)
    assert not (tmp_path / "public.json").exists()


def test_out_of_memory_names_the_limit_to_raise(tmp_path: Path) -> None:
    result = cli(*freeze_args(DEMO, tmp_path, "t"), tmpdir=tmp_path, S8F_DUCK_MEMORY_LIMIT="2MB")
    assert result.returncode == 2, result.stderr
    line = one_line(result.stderr)
    assert "out of memory within the limit S8F_DUCK_MEMORY_LIMIT=2MB" in line and "raise it" in line
    assert not (tmp_path / "public.json").exists()


def test_an_unreadable_memory_limit_is_exit_2(tmp_path: Path) -> None:
    result = cli(*freeze_args(DEMO, tmp_path, "t"), tmpdir=tmp_path, S8F_DUCK_MEMORY_LIMIT="banana")
    assert result.returncode == 2, result.stderr
    assert "$S8F_DUCK_MEMORY_LIMIT" in one_line(result.stderr)


def test_100000_labels_on_one_issue_freeze_oracle_grade_included(tmp_path: Path) -> None:
    # the bundle's label_counts of 100,000 entries took the oracle grade out of 3 GB
    records = [issue(n, body=f"body {n}") for n in range(1, 60)]
    records.append(issue(60, labels=[f"label-{k}" for k in range(100_000)]))
    raw = write_json(tmp_path / "labels.json", records)
    out = tmp_path / "out"
    out.mkdir()
    result = cli(*freeze_args(raw, out, "t"), tmpdir=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(outputs(out)["report"].read_bytes())
    assert report["blind_oracle_grade"]["quality_pass"] is True
    assert is_one_triple(out)
    graded = cli("grade", "--answers", out / "answers.json", "--submission", out / "answers.json",
                 "--output", tmp_path / "g.json", tmpdir=tmp_path)  # fmt: skip
    assert graded.returncode == 0, graded.stderr


def test_a_200_mb_body_freezes_or_is_refused_with_exit_2(tmp_path: Path) -> None:
    records = [issue(n, body=f"body {n}") for n in range(1, 60)]
    raw = tmp_path / "body.json"
    with open(raw, "w", encoding="utf-8") as f:  # written piecewise: no 200 MB string here
        f.write(json.dumps(records)[:-1] + ", ")
        last = json.dumps(issue(60, body="@@"))
        head, tail = last.split('"@@"')
        f.write(head + '"')
        for _ in range(200):
            f.write("word " * 209_716)  # 1 MiB
        f.write('"' + tail + "]")
    out = tmp_path / "out"
    out.mkdir()
    result = cli(*freeze_args(raw, out, "t"), tmpdir=tmp_path)
    raw.unlink()
    if result.returncode == 0:
        assert is_one_triple(out)
    else:
        assert result.returncode == 2, result.stderr
        assert "S8F_DUCK_MEMORY_LIMIT" in one_line(result.stderr)
        assert list(out.iterdir()) == []


def test_a_bug_exits_3_with_a_short_report_and_no_traceback(tmp_path: Path) -> None:
    result = patched(["bug"], *freeze_args(DEMO, tmp_path, "t"), tmpdir=tmp_path)
    assert result.returncode == 3, result.stderr
    line = one_line(result.stderr)
    assert line.startswith("s8f-duck freeze: internal error: TypeError: an injected bug")
    assert "This is a bug in s8f-duck" in line and "S8F_DUCK_DEBUG=1" in line
    assert not work_directories(tmp_path)
    debug = patched(["bug"], *freeze_args(DEMO, tmp_path, "t"), tmpdir=tmp_path, S8F_DUCK_DEBUG="1")
    assert debug.returncode == 3
    assert "Traceback (most recent call last)" in debug.stderr and 'raise TypeError("an injected bug")' in debug.stderr


def test_a_verdict_is_still_exit_1(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert cli(*freeze_args(DEMO, out, "t"), tmpdir=tmp_path).returncode == 0
    paths = outputs(out)
    report = json.loads(paths["report"].read_bytes())
    report["records"] = 65
    paths["report"].write_text(json.dumps(report))
    result = cli("verify", "--public", paths["public"], "--answers", paths["answers"], "--report", paths["report"],
                 tmpdir=tmp_path)  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
