"""The command line's conventions: help with choices and exit statuses, --version, -h,
`python -m s8f_duck`, -q / -v and the default output, created output directories, `-` as
standard output, `grade` without --output, and S8F_DUCK_MEMORY_LIMIT as DuckDB reads it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import click
import duckdb
import pytest
import typer
from processes import DEMO, cli, environment, freeze_args, frozen_demo

from s8f_duck.cli.main import app

TOP = typer.main.get_command(app).commands  # type: ignore[attr-defined]
# Every command that runs, a group's by "group command" (adjudicate packet).
COMMANDS = {
    **{name: command for name, command in TOP.items() if not hasattr(command, "commands")},
    **{f"{name} {sub}": command for name, group in TOP.items() if hasattr(group, "commands")
       for sub, command in group.commands.items()},
}  # fmt: skip
FREEZE_STEPS = [
    "read the dump",
    "derive the splits, facts and answers",
    "write the public corpus and the answer bundle",
    "check for leaks",
]
STEP_LINE = re.compile(r"^(\w+): (.+) \.\.\. \d+\.\d\ds$")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return frozen_demo(tmp_path_factory.mktemp("corpus"))


def triple(out: Path) -> list[str | Path]:
    return ["--public", out / "public.json", "--answers", out / "answers.json", "--report", out / "report.json"]


# --- help ------------------------------------------------------------------------------


def test_every_command_is_covered() -> None:
    assert set(COMMANDS) == {"freeze", "grade", "verify", "baseline", "explore", "sql", "run", "runs", "serve",
                             "team", "submit", "leaderboard", "adjudicate packet", "adjudicate agree",
                             "adjudicate gold", "adjudicate model", "adjudicate page"}  # fmt: skip


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_lists_choices_and_exit_codes(command: str, flag: str, tmp_path: Path) -> None:
    result = cli(*command.split(), flag, tmpdir=tmp_path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith(f"Usage: s8f-duck {command} ")
    assert re.search(r"Exit status:\n\s+0\s+\S", text), text
    assert re.search(r"^\s+2\s+\S", text, re.M), text  # every command can refuse its input
    for param in COMMANDS[command].params:
        if isinstance(param.type, click.Choice):
            assert f"<{'|'.join(param.type.choices)}>" in text, (param.name, text)
    assert "-q, --quiet" in text and "-v, --verbose" in text
    assert "SPEC" not in text and "§" not in text
    assert not re.search(r"\w+\.py\b|s8f_duck/", text), text
    assert max(map(len, text.splitlines())) <= 100  # paragraphs rewrapped, not hard-wrapped


@pytest.mark.parametrize(
    "command, option, choices",
    [
        ("freeze", "--input-format", "auto|gh|rest"),
        ("verify", "--input-format", "auto|gh|rest"),
        ("grade", "--format", "summary|table|json|jsonl"),
        ("grade", "--split", "test|tune|train"),
        ("sql", "--format", "table|csv|json"),
        ("runs", "--format", "table|csv|json"),
        ("leaderboard", "--format", "table|csv|json"),
        ("run", "--split", "test|tune|train"),
        ("submit", "--split", "test|tune|train"),
    ],
)
def test_enumerated_options_show_their_choices(command: str, option: str, choices: str, tmp_path: Path) -> None:
    result = cli(command, "-h", tmpdir=tmp_path)
    assert re.search(rf"^\s+{re.escape(option)} <{re.escape(choices)}>", result.stdout, re.M), result.stdout


def test_the_input_formats_offered_are_the_loaders(tmp_path: Path) -> None:
    from s8f_duck.cli import app as cli_app
    from s8f_duck.reading import input_forms

    assert tuple(f.value for f in cli_app.InputFormat) == input_forms.INPUT_FORMATS


def test_a_choice_not_offered_is_a_usage_error(corpus: Path, tmp_path: Path) -> None:
    result = cli("sql", "--public", corpus / "public.json", "--format", "xml", "SELECT 1", tmpdir=tmp_path)
    assert result.returncode == 2
    assert "'xml' is not one of 'table', 'csv', 'json'" in result.stderr


def test_top_level_help(tmp_path: Path) -> None:
    for args in (["-h"], ["--help"], []):
        result = cli(*args, tmpdir=tmp_path)
        assert result.returncode in (0, 2)  # without arguments: the help, as a usage error
        text = result.stdout or result.stderr
        assert "Exit status:" in text and "S8F_DUCK_MEMORY_LIMIT" in text
        assert all(f"  {name} " in text for name in TOP)
        assert "SPEC" not in text


# --- version, python -m ----------------------------------------------------------------


def test_version(tmp_path: Path) -> None:
    expected = f"s8f-duck {importlib.metadata.version('s8f-duck')}\n"
    result = cli("--version", tmpdir=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")
    module = subprocess.run([sys.executable, "-m", "s8f_duck", "--version"], capture_output=True, text=True,
                            env=environment(tmp_path), check=False)  # fmt: skip
    assert (module.returncode, module.stdout) == (0, expected)


def test_python_dash_m_runs_commands(corpus: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "s8f_duck", "sql", "--public", str(corpus / "public.json"), "--format", "csv",
         "SELECT count(*) AS n FROM issues"],
        capture_output=True, text=True, env=environment(tmp_path), check=False,
    )  # fmt: skip
    assert (result.returncode, result.stdout) == (0, "n\n64\n"), result.stderr


# --- -q, -v, the default ---------------------------------------------------------------


def freeze_to(out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    args = [a for a in freeze_args(DEMO, out, "demo") if a != "-q"]
    return cli(*args, *flags, tmpdir=out)


def test_quiet_prints_nothing_on_success(tmp_path: Path) -> None:
    result = freeze_to(tmp_path, "-q")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    grade = cli("grade", "--answers", tmp_path / "answers.json", "--submission", tmp_path / "answers.json", "-q",
                tmpdir=tmp_path)  # fmt: skip
    assert (grade.returncode, grade.stdout, grade.stderr) == (0, "", "")


def test_quiet_still_prints_errors(tmp_path: Path) -> None:
    result = cli("freeze", tmp_path / "missing.json", "--source", "x", *triple(tmp_path), "-q", tmpdir=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("s8f-duck freeze: error:") and result.stderr.count("\n") == 1


def test_the_default_prints_the_summary_and_no_steps_when_not_on_a_terminal(tmp_path: Path) -> None:
    result = freeze_to(tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("records 64: train") and result.stdout.endswith("leak checks: all true\n")


def test_verbose_prints_one_line_per_step(tmp_path: Path) -> None:
    result = freeze_to(tmp_path, "-v")
    assert result.returncode == 0
    assert result.stdout.endswith("leak checks: all true\n")  # the summary as without -v
    lines = result.stderr.splitlines()
    assert all(STEP_LINE.match(line) for line in lines), lines
    assert [STEP_LINE.match(line)[2] for line in lines] == FREEZE_STEPS  # type: ignore[index]
    quiet = freeze_to(tmp_path / "q", "-v", "-q")  # -q then silences the summary only
    assert quiet.stdout == "" and len(quiet.stderr.splitlines()) == len(FREEZE_STEPS)


def test_verify_names_its_own_steps_once(corpus: Path, tmp_path: Path) -> None:
    result = cli("verify", *triple(corpus), "-v", tmpdir=tmp_path)
    assert result.returncode == 0, result.stderr
    names = [STEP_LINE.match(line)[2] for line in result.stderr.splitlines()]  # type: ignore[index]
    assert names == ["re-derive the artifacts from the public corpus", "compare the artifacts"]
    assert "write" not in result.stderr and "done" not in result.stderr
    assert cli("verify", *triple(corpus), "-q", tmpdir=tmp_path).stdout == ""


@pytest.mark.parametrize(
    "command, steps",
    [
        ("baseline", ["read the public corpus", "answer the questions", "write the submission"]),
        ("explore", ["read the public corpus", "derive the tables"]),
        ("grade", ["grade the submission"]),
    ],
)
def test_every_command_takes_q_and_v(command: str, steps: list[str], corpus: Path, tmp_path: Path) -> None:
    args: dict[str, list[str | Path]] = {
        "baseline": ["--public", corpus / "public.json", "--output", tmp_path / "s.json"],
        "explore": ["--public", corpus / "public.json", "--db", tmp_path / "e.duckdb"],
        "grade": ["--answers", corpus / "answers.json", "--submission", corpus / "answers.json"],
    }
    verbose = cli(command, *args[command], "-v", tmpdir=tmp_path)
    assert verbose.returncode == 0, verbose.stderr
    assert [STEP_LINE.match(line)[2] for line in verbose.stderr.splitlines()] == steps  # type: ignore[index]
    assert verbose.stdout.strip()
    quiet = cli(command, *args[command], "-q", tmpdir=tmp_path)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_on_a_terminal_one_updating_line_is_erased_at_the_end(tmp_path: Path) -> None:
    """stderr a terminal, stdout a pipe: the steps rewrite one line, erased at the end; the
    summary is printed as without a terminal."""
    controller, terminal = pty.openpty()
    args = [a for a in freeze_args(DEMO, tmp_path, "demo") if a != "-q"]
    process = subprocess.Popen([str(a) for a in [Path(sys.executable).parent / "s8f-duck", *args]],
                               stdout=subprocess.PIPE, stderr=terminal, env=environment(tmp_path), text=True)  # fmt: skip
    os.close(terminal)
    stdout, _ = process.communicate(timeout=300)
    shown = _read_all(controller)
    assert process.returncode == 0
    assert stdout.endswith("leak checks: all true\n")
    assert "\n" not in shown, repr(shown)  # one line, rewritten
    for step in FREEZE_STEPS:
        assert f"\r\x1b[Kfreeze: {step} ..." in shown
    assert shown.endswith("\r\x1b[K")  # nothing left on the line


def _read_all(fd: int) -> str:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not chunk:
            break
        data += chunk
    os.close(fd)
    return data.decode()


# --- outputs: directories, `-`, grade without --output ----------------------------------


def test_output_directories_are_created(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"
    result = cli("freeze", DEMO, "--source", "demo", "--public", out / "p" / "public.json",
                 "--answers", out / "answers.json", "--report", out / "r" / "report.json",
                 "--db", out / "d" / "c.duckdb", "-q", tmpdir=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (out / "p" / "public.json").is_file() and (out / "d" / "c.duckdb").is_file()
    sub = tmp_path / "x" / "y" / "submission.json"
    assert cli("baseline", "--public", corpus / "public.json", "--output", sub, tmpdir=tmp_path).returncode == 0
    graded = tmp_path / "g" / "grade.json"
    result = cli("grade", "--answers", corpus / "answers.json", "--submission", sub, "--output", graded, tmpdir=tmp_path)
    assert result.returncode == 0 and json.loads(graded.read_text())["quality_pass"] is True
    db = tmp_path / "e" / "f" / "corpus.duckdb"
    assert cli("explore", "--public", corpus / "public.json", "--db", db, tmpdir=tmp_path).returncode == 0
    assert db.is_file()


def test_an_output_directory_that_cannot_be_made_exits_2(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = cli("baseline", "--public", corpus / "public.json", "--output", tmp_path / "file" / "s.json", tmpdir=tmp_path)
    assert result.returncode == 2 and "--output" in result.stderr and "Not a directory" in result.stderr


def test_dash_is_standard_output(corpus: Path, tmp_path: Path) -> None:
    written = tmp_path / "submission.json"
    assert cli("baseline", "--public", corpus / "public.json", "--output", written, tmpdir=tmp_path).returncode == 0
    result = subprocess.run([str(Path(sys.executable).parent / "s8f-duck"), "baseline", "--public",
                             str(corpus / "public.json"), "--output", "-"], capture_output=True,
                            env=environment(tmp_path), cwd=tmp_path, check=False)  # fmt: skip
    assert result.returncode == 0
    assert result.stdout == written.read_bytes()  # the submission alone; the summary on stderr
    assert result.stderr == b"wrote 64 answers to standard output\n"
    assert not (tmp_path / "-").exists()

    graded = tmp_path / "grade.json"
    to_file = cli("grade", "--answers", corpus / "answers.json", "--submission", written, "--output", graded,
                  tmpdir=tmp_path)  # fmt: skip
    to_stdout = cli("grade", "--answers", corpus / "answers.json", "--submission", written, "--output", "-",
                    tmpdir=tmp_path)  # fmt: skip
    assert to_stdout.returncode == 0
    assert to_stdout.stdout == graded.read_text() and to_stdout.stderr == to_file.stdout


def test_dash_is_refused_where_outputs_are_files(tmp_path: Path) -> None:
    result = cli("freeze", DEMO, "--source", "demo", "--public", "-", "--answers", tmp_path / "a.json",
                 "--report", tmp_path / "r.json", tmpdir=tmp_path)  # fmt: skip
    assert result.returncode == 2 and "--public -: this output is a file" in result.stderr


def test_grade_without_output_prints_only(corpus: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run([str(Path(sys.executable).parent / "s8f-duck"), "grade", "--answers",
                             str(corpus / "answers.json"), "--submission", str(corpus / "answers.json")],
                            capture_output=True, text=True, env=environment(tmp_path), cwd=work, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("PASS: 47/47 test records exact;")
    assert list(work.iterdir()) == [] and not (corpus / "answers-grade.json").exists()


def test_a_grade_imports_nothing_it_does_not_use(corpus: Path, tmp_path: Path) -> None:
    """pyarrow (0.14 s), the model client and the browser are imported only by the commands
    and options that need them: a plain grade pays for none."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "s8f_duck", "grade", "--answers",
                             str(corpus / "answers.json"), "--submission", str(corpus / "answers.json")],
                            capture_output=True, text=True, env=environment(tmp_path), check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    imported = {line.split("|")[-1].strip().split(".")[0] for line in result.stderr.splitlines() if "|" in line}
    assert "duckdb" in imported and not imported & {"pyarrow", "openai", "playwright", "httpx", "uvicorn"}


# --- S8F_DUCK_MEMORY_LIMIT ---------------------------------------------------------------


@pytest.mark.parametrize("limit, shown", [("3G", "2.7 GiB"), ("3GB", "2.7 GiB"), ("3GiB", "3.0 GiB"),
                                          ("3 GB", "2.7 GiB"), ("1.5GB", "1.3 GiB"), ("75%", None)])  # fmt: skip
def test_memory_limit_takes_what_duckdb_takes(limit: str, shown: str | None, corpus: Path, tmp_path: Path) -> None:
    query = "SELECT current_setting('memory_limit') AS m"
    result = cli("sql", "--public", corpus / "public.json", "--format", "csv", query, tmpdir=tmp_path,
                 S8F_DUCK_MEMORY_LIMIT=limit)  # fmt: skip
    assert result.returncode == 0, result.stderr
    reference = duckdb.connect(config={"memory_limit": limit})
    expected = reference.execute(query).fetchall()[0][0]
    assert result.stdout == f"m\n{expected}\n" and (shown is None or expected == shown)
    frozen = cli(*freeze_args(DEMO, tmp_path, "demo"), tmpdir=tmp_path, S8F_DUCK_MEMORY_LIMIT=limit)
    assert frozen.returncode == 0, frozen.stderr


def test_memory_limit_in_bytes_is_duckdbs(monkeypatch: pytest.MonkeyPatch) -> None:
    from s8f_duck.pipeline import steps

    for limit, expected in [("3G", 3 * 10**9), ("3GB", 3 * 10**9), ("3GiB", 3 * 2**30), ("512MiB", 2**29)]:
        monkeypatch.setenv("S8F_DUCK_MEMORY_LIMIT", limit)
        assert steps.memory_limit_bytes() == expected
    monkeypatch.setenv("S8F_DUCK_MEMORY_LIMIT", "75%")
    assert steps.memory_limit_bytes() > 0  # a share of this machine's memory, as DuckDB counts it


@pytest.mark.parametrize("limit", ["lots", "3 parsecs", "12"])
def test_a_memory_limit_duckdb_refuses_exits_2(limit: str, corpus: Path, tmp_path: Path) -> None:
    for args in (freeze_args(DEMO, tmp_path, "demo"), ["sql", "--public", corpus / "public.json", "SELECT 1"]):
        result = cli(*args, tmpdir=tmp_path, S8F_DUCK_MEMORY_LIMIT=limit)
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert f"$S8F_DUCK_MEMORY_LIMIT={limit!r} is not a memory size DuckDB takes" in result.stderr


# --- sql output is DuckDB's ------------------------------------------------------------

TYPED_QUERY = (
    "SELECT i.number, list(l.label ORDER BY l.label) AS labels, (i.number / 7)::DECIMAL(10, 3) AS ratio, "
    "i.created_at::TIMESTAMPTZ AS created FROM issues i JOIN labels l USING (number) GROUP BY ALL ORDER BY i.number"
)


@pytest.mark.parametrize("fmt, options", [("csv", "FORMAT csv"), ("json", "FORMAT json, ARRAY true")])
def test_sql_csv_and_json_are_duckdbs_own(fmt: str, options: str, corpus: Path, tmp_path: Path) -> None:
    """A list, a decimal and a timestamp column, as DuckDB's COPY writes them."""
    expected_file = tmp_path / f"expected.{fmt}"
    with duckdb.connect(str(corpus / "corpus.duckdb"), read_only=True) as con:
        con.execute(f"COPY ({TYPED_QUERY}) TO '{expected_file}' ({options})")
    expected = expected_file.read_text(encoding="utf-8")
    expected += "" if expected.endswith("\n") else "\n"  # a text stream's last line ends
    for source in (["--db", corpus / "corpus.duckdb"], ["--public", corpus / "public.json"]):
        result = cli("sql", *source, "--format", fmt, TYPED_QUERY, tmpdir=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout == expected
    if fmt == "csv":  # the list in DuckDB's form, not Python's repr
        assert ",[bug]," in result.stdout and "'bug'" not in result.stdout  # Python's repr quotes every string
    else:
        rows = json.loads(result.stdout)
        assert isinstance(rows[0]["labels"], list) and isinstance(rows[0]["ratio"], float)  # a number, not a string
        assert rows[0]["created"].endswith("+00")


def test_sql_table_is_duckdbs_box(corpus: Path, tmp_path: Path) -> None:
    query = "SELECT 'é漢字' AS wide, 12.50::DECIMAL(4, 2) AS d"
    result = cli("sql", "--public", corpus / "public.json", query, tmpdir=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == str(duckdb.connect().sql(query))


def test_a_reader_that_leaves_ends_the_command_quietly(corpus: Path, tmp_path: Path) -> None:
    """`s8f-duck sql ... | head -1`: no error line, the status of a command ended by SIGPIPE."""
    process = subprocess.Popen([str(Path(sys.executable).parent / "s8f-duck"), "sql", "--public",
                                str(corpus / "public.json"), "--format", "csv", "SELECT * FROM range(3000000)"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(tmp_path))  # fmt: skip
    assert process.stdout is not None and process.stdout.readline() == b"range\n"
    process.stdout.close()
    _, stderr = process.communicate(timeout=300)
    assert (process.returncode, stderr) == (141, b"")


@pytest.mark.parametrize("name", sorted(typer.main.get_command(app).commands))  # type: ignore[attr-defined]
def test_the_command_that_runs_is_built_alone_and_behaves_the_same(name: str) -> None:
    """main() builds only the command named first (building all of them costs about 20 ms
    a call): it alone is registered, and its help and its usage errors read as with the
    whole application."""
    from typer.testing import CliRunner

    from s8f_duck.cli.main import _app_for

    alone = _app_for([name, "-h"])
    assert alone is not app and len(alone.registered_commands) + len(alone.registered_groups) == 1
    assert _app_for(["-h"]) is app and _app_for(["no-such-command"]) is app
    runner = CliRunner()
    for args in ([name, "-h"], [name, "--no-such-option"]):
        whole, one = runner.invoke(app, args), runner.invoke(alone, args)
        assert (one.exit_code, one.output) == (whole.exit_code, whole.output)


def test_commands_ending_without_teardown_still_clean_up_flush_and_give_the_verdict(tmp_path: Path) -> None:
    """freeze, verify, baseline and grade end without Python's interpreter teardown
    (cli.QUICK_EXIT_COMMANDS): their exit handlers still remove the run's work directory
    and DuckDB's spill directories from $TMPDIR, stdout is flushed to its last byte, and
    the exit status is the command's."""
    from s8f_duck.cli.main import QUICK_EXIT_COMMANDS

    assert {"freeze", "verify", "baseline", "grade"} <= QUICK_EXIT_COMMANDS
    tmpdir, out = tmp_path / "tmp", tmp_path / "out"
    tmpdir.mkdir()
    out.mkdir()
    steps = [
        (cli(*freeze_args(DEMO, out, "demo"), tmpdir=tmpdir), 0),
        (cli("verify", *triple(out), tmpdir=tmpdir), 0),
        (cli("baseline", "--public", out / "public.json", "--output", out / "submission.json", tmpdir=tmpdir), 0),
    ]
    submission = json.loads((out / "submission.json").read_text(encoding="utf-8"))
    graded = cli("grade", "--answers", out / "answers.json", "--submission", out / "submission.json", "--output", "-",
                 tmpdir=tmpdir)  # fmt: skip
    steps.append((graded, 0))
    assert json.loads(graded.stdout)["quality_pass"] is True and graded.stdout.endswith("}\n")
    submission["answers"] = submission["answers"][1:]
    (out / "short.json").write_text(json.dumps(submission), encoding="utf-8")
    steps.append((cli("grade", "--answers", out / "answers.json", "--submission", out / "short.json", tmpdir=tmpdir), 1))
    steps.append((cli("grade", "--answers", out / "answers.json", "--submission", out / "none.json", tmpdir=tmpdir), 2))
    for result, status in steps:
        assert result.returncode == status, (result.args, result.stderr)
    assert list(tmpdir.iterdir()) == []
