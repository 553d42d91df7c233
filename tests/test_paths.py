"""Path arguments: no output is another path of its command, or a link, or not a regular
file (exit 2, both paths named, nothing touched); outputs keep the mode of the files they
replace, and a new answer bundle is readable by its owner only."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from processes import DEMO, cli, freeze_args, one_line, outputs, work_directories


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo freeze with every output: the inputs of grade, baseline and explore below."""
    out = tmp_path_factory.mktemp("frozen")
    result = cli(*freeze_args(DEMO, out, "demo", "db", "parquet"), tmpdir=out)
    assert result.returncode == 0, result.stderr
    return out


def _freeze(d: Path, **changes: str) -> list[str | Path]:
    """freeze's arguments writing into d, with some options replaced (paths relative to d)."""
    options = {"--public": "p.json", "--answers": "a.json", "--report": "r.json", **changes}
    raw = changes.pop("RAW", "raw.json")
    args: list[str | Path] = ["freeze", d / raw, "--source", "t"]
    for option, value in options.items():
        if option != "RAW":
            args += [option, d / value]
    return args


# case -> (arguments in directory d, the two options the message names)
COLLISIONS: dict[str, tuple[Callable[[Path], list[str | Path]], tuple[str, str]]] = {
    "public = answers": (lambda d: _freeze(d, **{"--answers": "p.json"}), ("--public", "--answers")),
    "public = answers spelled otherwise": (lambda d: _freeze(d, **{"--answers": "sub/../p.json"}), ("--public", "--answers")),
    "public = answers through a linked directory": (lambda d: _freeze(d, **{"--answers": "link/p.json"}), ("--public", "--answers")),
    "public = answers as hard links": (lambda d: _freeze(d, **{"--answers": "hard.json"}), ("--public", "--answers")),
    "public = report": (lambda d: _freeze(d, **{"--report": "p.json"}), ("--public", "--report")),
    "db = public": (lambda d: _freeze(d, **{"--db": "p.json"}), ("--public", "--db")),
    "parquet = answers": (lambda d: _freeze(d, **{"--parquet": "a.json"}), ("--answers", "--parquet")),
    "public = RAW": (lambda d: _freeze(d, **{"--public": "raw.json"}), ("RAW", "--public")),
    "answers = RAW through a link": (lambda d: _freeze(d, **{"--answers": "link/raw.json"}), ("RAW", "--answers")),
    "report = redactions": (lambda d: _freeze(d, **{"--redactions": "map.json", "--report": "map.json"}), ("--redactions", "--report")),
    "grade output = answers": (
        lambda d: ["grade", "--answers", d / "a.json", "--submission", d / "s.json", "--output", d / "a.json"],
        ("--answers", "--output"),
    ),
    "grade output = submission": (
        lambda d: ["grade", "--answers", d / "a.json", "--submission", d / "s.json", "--output", d / "./s.json"],
        ("--submission", "--output"),
    ),
    "baseline output = public": (
        lambda d: ["baseline", "--public", d / "p.json", "--output", d / "sub/../p.json"], ("--public", "--output")
    ),
    "explore db = public": (lambda d: ["explore", "--public", d / "p.json", "--db", d / "p.json"], ("--public", "--db")),
    "explore parquet = public": (lambda d: ["explore", d / "p.json", "--db", d / "x.duckdb", "--parquet", d / "p.json"], ("--public", "--parquet")),
    "explore db = parquet": (lambda d: ["explore", d / "p.json", "--db", d / "x", "--parquet", d / "x"], ("--db", "--parquet")),
}  # fmt: skip


@pytest.mark.parametrize("case", COLLISIONS, ids=list(COLLISIONS))
def test_two_paths_of_one_file_are_refused(case: str, frozen: Path, tmp_path: Path) -> None:
    make_args, (first, second) = COLLISIONS[case]
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "link").symlink_to(d)
    (d / "raw.json").write_bytes(DEMO.read_bytes())
    (d / "map.json").write_text('["secret"]')
    for name, source in (("p.json", "public.json"), ("a.json", "answers.json"), ("r.json", "report.json")):
        (d / name).write_bytes((frozen / source).read_bytes())
    (d / "s.json").write_bytes((frozen / "answers.json").read_bytes())
    os.link(d / "p.json", d / "hard.json")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir() if p.is_file()}
    result = cli(*make_args(d), tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    line = one_line(result.stderr)
    assert "same file" in line and f"{first} " in line and f"{second} " in line
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in d.iterdir() if p.is_file()}
    assert after == before
    assert sorted(p.name for p in d.iterdir()) == sorted(["sub", "link", *(p.name for p in before)])


def test_an_input_may_be_given_twice(frozen: Path, tmp_path: Path) -> None:
    # the answer bundle graded as its own submission: two inputs, one file
    result = cli("grade", "--answers", frozen / "answers.json", "--submission", frozen / "answers.json",
                 "--output", tmp_path / "g.json", tmpdir=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_an_output_that_is_a_link_is_refused_and_left_alone(frozen: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text("someone else's file\n")
    link = tmp_path / "public.json"
    link.symlink_to(target)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    for output in (link, dangling):
        result = cli(*freeze_args(DEMO, tmp_path, "t")[:-6], "--public", output, "--answers", tmp_path / "a.json",
                     "--report", tmp_path / "r.json", tmpdir=tmp_path)  # fmt: skip
        assert result.returncode == 2, result.stderr
        assert f"--public {output}: is a symbolic link" in one_line(result.stderr)
        assert output.is_symlink()
    assert target.read_text() == "someone else's file\n"
    assert not (tmp_path / "nowhere.json").exists() and not (tmp_path / "a.json").exists()


def test_baseline_output_dev_stdout_is_refused(frozen: Path, tmp_path: Path) -> None:
    # /dev/stdout is a link (to /proc/self/fd/1): as root, it was replaced by a regular file
    assert os.path.islink("/dev/stdout")
    result = cli("baseline", "--public", frozen / "public.json", "--output", "/dev/stdout", tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "--output /dev/stdout: is a symbolic link" in one_line(result.stderr)
    assert os.path.islink("/dev/stdout")


@pytest.mark.parametrize("output", ["/dev/null", "a directory", "a pipe"])
def test_an_output_that_is_not_a_regular_file_is_refused(output: str, frozen: Path, tmp_path: Path) -> None:
    path = Path(output)
    if output == "a directory":
        path = tmp_path / "dir.json"
        path.mkdir()
    elif output == "a pipe":
        path = tmp_path / "pipe.json"
        os.mkfifo(path)
    result = cli("grade", "--answers", frozen / "answers.json", "--submission", frozen / "answers.json",
                 "--output", path, tmpdir=tmp_path)  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert str(path) in one_line(result.stderr)
    assert "directory" in result.stderr or "not a regular file" in result.stderr
    assert path.exists() and not path.is_file()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_outputs_modes_answer_bundle_and_database_private(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = cli(*freeze_args(DEMO, out, "t", "db", "parquet"), tmpdir=tmp_path, umask=0o022)
    assert result.returncode == 0, result.stderr
    paths = outputs(out, "db", "parquet")
    modes = {name: _mode(path) for name, path in paths.items()}
    assert modes == {"public": 0o644, "answers": 0o600, "report": 0o644, "db": 0o600, "parquet": 0o644}


def test_a_refreeze_keeps_the_modes_of_the_files_it_replaces(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    paths = outputs(out)
    for path, mode in zip(paths.values(), (0o640, 0o600, 0o664)):
        path.write_text("old\n")
        path.chmod(mode)
    result = cli(*freeze_args(DEMO, out, "t"), tmpdir=tmp_path, umask=0o022)
    assert result.returncode == 0, result.stderr
    assert all(path.read_text() != "old\n" for path in paths.values())
    assert [_mode(p) for p in paths.values()] == [0o640, 0o600, 0o664]
    paths["answers"].chmod(0o644)  # world-readable by the owner's choice: kept so
    assert cli(*freeze_args(DEMO, out, "again"), tmpdir=tmp_path).returncode == 0
    assert _mode(paths["answers"]) == 0o644


def test_baseline_and_grade_outputs_keep_modes_too(frozen: Path, tmp_path: Path) -> None:
    submission, graded = tmp_path / "s.json", tmp_path / "g.json"
    for path in (submission, graded):
        path.write_text("old\n")
        path.chmod(0o600)
    assert cli("baseline", "--public", frozen / "public.json", "--output", submission, tmpdir=tmp_path).returncode == 0
    result = cli("grade", "--answers", frozen / "answers.json", "--submission", submission, "--output", graded,
                 tmpdir=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _mode(submission) == _mode(graded) == 0o600
    assert submission.read_text() != "old\n" and graded.read_text() != "old\n"


@pytest.mark.parametrize("which", ["input", "output"])
def test_a_path_that_is_not_utf8_is_refused_without_a_crash(which: str, tmp_path: Path) -> None:
    odd = tmp_path / "caf\udce9.json"  # the byte 0xE9 alone: not UTF-8 (surrogateescape)
    if which == "input":
        odd.write_bytes(DEMO.read_bytes())
        args = freeze_args(odd, tmp_path, "t")
    else:
        args = [*freeze_args(DEMO, tmp_path, "t")[:-6], "--public", odd, "--answers", tmp_path / "a.json",
                "--report", tmp_path / "r.json"]  # fmt: skip
    result = cli(*args, tmpdir=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "not valid UTF-8" in one_line(result.stderr)
    assert not (tmp_path / "public.json").exists() and not (tmp_path / "a.json").exists()
    assert not work_directories(tmp_path)
