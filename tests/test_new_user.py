"""What a new user trips over (issue 32): each message says what is wrong in one line,
`s8f-duck COMMAND: error: ...`, exit 2; a grade that grades nothing says so and nothing
more; what is not graded is not shown as exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_RAW, freeze_dump, issue, needs_s8f, run_cli, write_json


def _one_line_error(done: object, command: str, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)  # type: ignore[attr-defined]
    lines = done.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith(f"{' '.join(['s8f-duck', command]).strip()}: error: "), lines
    for word in words:
        assert word in lines[0], lines[0]


def test_a_directory_given_as_the_dump_is_called_a_directory(tmp_path: Path) -> None:
    done = run_cli("freeze", tmp_path, "--source", "x", "--public", tmp_path / "p.json",
                   "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json")  # fmt: skip
    _one_line_error(done, "freeze", "a directory, not a file")


def test_writing_into_proc_says_the_file_system_takes_no_files(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "raw.json", [issue(1)])
    done = run_cli("freeze", raw, "--source", "x", "--min-records", "1", "--public", "/proc/p.json",
                   "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json")  # fmt: skip
    _one_line_error(done, "freeze", "/proc: cannot write there: the file system there takes no new files")
    assert "No such file" not in done.stderr


@needs_s8f
@pytest.mark.parametrize(
    "args, command, hint",
    [
        (("sql", "--db", S8F_PUBLIC, "SELECT 1"), "sql", "give a public corpus as --public"),
        (("runs", "--runs", S8F_PUBLIC), "runs", "--runs takes the runs database"),
        (("leaderboard", "--runs", S8F_PUBLIC), "leaderboard", "--runs takes the runs database"),
    ],
)
def test_a_json_file_given_as_a_database_is_named_as_json(args: tuple, command: str, hint: str) -> None:
    _one_line_error(run_cli(*args), command, "this is a JSON file, not a DuckDB database", hint)


@needs_s8f
def test_a_gh_dump_read_as_rest_gets_a_hint(tmp_path: Path) -> None:
    done = run_cli("freeze", "--input-format", "rest", S8F_RAW, "--source", "x", "--public", tmp_path / "p.json",
                   "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json")  # fmt: skip
    _one_line_error(done, "freeze", "html_url", "look like `gh issue list --json` output: leave out --input-format rest")


@needs_s8f
@pytest.mark.parametrize("kind", ["public corpus", "empty object", "another corpus"])
@pytest.mark.parametrize("format", ["summary", "table"])
def test_a_grade_that_grades_nothing_is_one_line(tmp_path: Path, kind: str, format: str) -> None:
    if kind == "public corpus":
        submission = S8F_PUBLIC
    else:
        submission = tmp_path / "s.json"
        base = {} if kind == "empty object" else {"corpus_sha256": "0" * 64, "answers": []}
        submission.write_text(json.dumps(base), encoding="utf-8")
    done = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", submission, "--format", format)
    assert done.returncode == 1 and done.stderr == ""
    (line,) = done.stdout.splitlines()
    expected = "is bound to corpus " + "0" * 64 if kind == "another corpus" else "names no corpus"
    assert line.startswith("NOT GRADED: ") and expected in line, line


@needs_s8f
def test_aggregates_are_not_shown_exact_where_they_are_not_graded(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", baseline).returncode == 0
    table = run_cli("grade", "--answers", S8F_ANSWERS, baseline, "--split", "tune", "--format", "table").stdout
    assert "aggregates: not graded on tune" in table and " yes " not in table
    grade = json.loads(run_cli("grade", "--answers", S8F_ANSWERS, baseline, "--split", "tune", "--format",
                               "json").stdout)  # fmt: skip
    assert [a["exact"] for a in grade["breakdown"]["aggregates"]] == [None] * 4
    held_out = json.loads(run_cli("grade", "--answers", S8F_ANSWERS, baseline, "--format", "json").stdout)
    assert [a["exact"] for a in held_out["breakdown"]["aggregates"]] == [True] * 4


def test_verify_with_another_redaction_map_suggests_redactions(tmp_path: Path) -> None:
    empty = write_json(tmp_path / "none.json", [])
    freeze_dump(tmp_path, [issue(1, body="runs on samsung hardware"), issue(2)], "--redactions", empty)
    paths = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    done = run_cli("verify", *(f"--{name}={path}" for name, path in paths.items()))
    assert done.returncode == 1, done.stderr
    assert "give that map (verify --redactions MAP)" in done.stderr
    assert run_cli("verify", *(f"--{n}={p}" for n, p in paths.items()), "--redactions", empty).returncode == 0


@pytest.mark.parametrize(
    "args, command",
    [(("grade", "--bogus"), "grade"), (("sql", "--bogus"), "sql"), (("adjudicate", "packet", "--bogus"),
                                                                      "adjudicate packet"),
     (("grade",), "grade"), (("no-such-command",), "")],
)  # fmt: skip
def test_a_usage_error_is_one_line_naming_the_command(args: tuple, command: str) -> None:
    done = run_cli(*args)
    _one_line_error(done, command or "", "(see: s8f-duck")


@pytest.mark.parametrize("command, shown", [("freeze", "RAW"), ("run", "COMMAND..."), ("submit", "[SUBMISSION]")])
def test_usage_lines_name_arguments_plainly(command: str, shown: str) -> None:
    usage = run_cli(command, "-h").stdout.splitlines()[0]
    assert usage.endswith(f" {shown}") and "{" not in usage, usage
    assert "--compare RUN_A RUN_B" in run_cli("leaderboard", "-h").stdout


@needs_s8f
def test_q_and_v_may_come_before_the_command(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    assert run_cli("-q", "baseline", "--public", S8F_PUBLIC, "--output", baseline).returncode == 0
    quiet = run_cli("-q", "grade", "--answers", S8F_ANSWERS, baseline)
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    steps = run_cli("-v", "grade", "--answers", S8F_ANSWERS, baseline)
    assert steps.returncode == 0 and "grade the submission" in steps.stderr


@needs_s8f
def test_the_corpus_and_the_submission_take_both_forms(tmp_path: Path) -> None:
    """baseline takes the corpus as explore does (argument or --public); submit the
    submission as grade does (argument or --submission)."""
    one, other = tmp_path / "one.json", tmp_path / "other.json"
    assert run_cli("baseline", S8F_PUBLIC, "--output", one).returncode == 0
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", other).returncode == 0
    assert one.read_bytes() == other.read_bytes()
    _one_line_error(run_cli("baseline", "--output", tmp_path / "x.json"), "baseline", "public corpus is required")
    token = tmp_path / "token"
    token.write_text("t\n")
    refused = run_cli("submit", "--url", "http://127.0.0.1:9", "--token-file", token, "--submission", one)
    _one_line_error(refused, "submit", "cannot reach the service")  # (read, then sent: the form was taken)
    _one_line_error(run_cli("submit", "--url", "http://127.0.0.1:9", "--token-file", token), "submit",
                    "the submission is required")  # fmt: skip


def test_an_sql_error_is_one_line(tmp_path: Path) -> None:
    freeze_dump(tmp_path, [issue(1), issue(2)])
    public = tmp_path / "public.json"
    for query, words in (("SELEC 1", ('syntax error at or near "SELEC"', "LINE 1: SELEC 1")),
                         ("SELECT nosuch FROM issues", ('"nosuch" not found', "Candidate bindings"))):  # fmt: skip
        _one_line_error(run_cli("sql", "--public", public, query), "sql", "query failed:", *words)
