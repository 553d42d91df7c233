"""`s8f-duck sql` without a query: the `duckdb` shell only when it can read the database,
else the built-in prompt, which prints only results into a pipe, knows .tables / .schema /
.help, does not let an unknown command swallow the next statement, and on a terminal has
prompts, readline history and Ctrl-C that cancels a line."""

from __future__ import annotations

import os
import pty
import select
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from conftest import CLI
from processes import environment, frozen_demo


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return frozen_demo(tmp_path_factory.mktemp("corpus"))


def piped(
    corpus: Path, stdin: str, tmp_path: Path, path: str = "/nonexistent", *extra: str
) -> subprocess.CompletedProcess[str]:
    env = {**environment(tmp_path), "PATH": path}
    return subprocess.run([str(CLI), "sql", "--db", str(corpus / "corpus.duckdb"), *extra], input=stdin,
                          capture_output=True, text=True, env=env, check=False, timeout=300)  # fmt: skip


def test_a_pipe_gets_results_only(corpus: Path, tmp_path: Path) -> None:
    result = piped(corpus, "SELECT count(*) AS n\nFROM issues;\n", tmp_path, "/nonexistent", "--format", "csv")
    assert (result.returncode, result.stdout, result.stderr) == (0, "n\n64\n", "")


def test_an_unknown_command_does_not_swallow_the_next_statement(corpus: Path, tmp_path: Path) -> None:
    result = piped(corpus, ".frobnicate\nSELECT 41 + 1 AS answer;\n", tmp_path, "/nonexistent", "--format", "csv")
    assert result.returncode == 0
    assert result.stdout == "answer\n42\n"
    assert result.stderr == "error: unknown command .frobnicate (.help lists them)\n"


def test_dot_commands(corpus: Path, tmp_path: Path) -> None:
    result = piped(corpus, ".tables\n.schema labels\n.mode json\nSELECT 1 AS one;\n.help\n.quit\nSELECT 2;\n", tmp_path)
    assert result.returncode == 0, result.stderr
    tables, rest = result.stdout.split("CREATE TABLE labels(", 1)
    assert {"issues", "labels", "answers", "splits"} <= set(tables.split())
    assert rest.split("\n")[1] == "["  # the schema is one line; then the JSON
    assert '{"one":1}' in result.stdout and ".schema [TABLE]" in result.stdout
    assert '"2"' not in result.stdout and "2\n" not in result.stdout.split(".quit")[-1]  # .quit ended it


def test_several_statements_on_a_line_and_a_last_one_without_semicolon(corpus: Path, tmp_path: Path) -> None:
    result = piped(corpus, "SELECT 1 AS a; SELECT 2 AS b;\nSELECT 3 AS c", tmp_path, "/nonexistent", "--format", "csv")
    assert result.stdout == "a\n1\nb\n2\nc\n3\n"


def _fake_duckdb(tmp_path: Path, body: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "duckdb"
    fake.write_text("#!/bin/sh\n" + body)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return f"{bin_dir}{os.pathsep}/usr/bin:/bin"


def test_a_duckdb_shell_that_can_read_the_file_is_used(corpus: Path, tmp_path: Path) -> None:
    # answers the probe as a duckdb shell would; records how it was started last
    fake = f'printf "%s\\n" "$@" > {tmp_path}/argv\nif [ $# -gt 3 ]; then echo "s8f-duck probe 42"; fi\n'
    path = _fake_duckdb(tmp_path, fake)
    result = piped(corpus, "", tmp_path, path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "argv").read_text().split("\n")[:4] == ["-readonly", "-safe", str(corpus / "corpus.duckdb"), ""]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("s8f-duck")]  # no work or spill directory left


def test_an_older_duckdb_shell_falls_back_to_the_prompt(corpus: Path, tmp_path: Path) -> None:
    # as DuckDB 1.5.6 answers a newer file: an error, and no result
    path = _fake_duckdb(tmp_path, f'echo started >> {tmp_path}/started\n'
                                  'echo "Error: unable to open database: version number 69" >&2\nexit 1\n')  # fmt: skip
    result = piped(corpus, "SELECT 6 * 7 AS n;\n", tmp_path, path, "--format", "csv")
    assert (result.returncode, result.stdout) == (0, "n\n42\n"), result.stderr
    assert (tmp_path / "started").read_text() == "started\n"  # probed once, never exec'd


def test_the_prompt_on_a_terminal(corpus: Path, tmp_path: Path) -> None:
    """Prompts, Ctrl-C cancelling the line being typed or the query running (not the
    command), readline's history kept in $HOME, Ctrl-D leaving."""
    env = {**environment(tmp_path), "PATH": "/nonexistent", "HOME": str(tmp_path), "TERM": "dumb"}
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the terminal is its stdin, stdout and stderr
        os.execve(str(CLI), [str(CLI), "sql", "--db", str(corpus / "corpus.duckdb"), "--format", "csv"], env)
    screen = Screen(terminal)
    try:
        screen.wait_for("s8f> ")
        os.write(terminal, b"SELECT 'not run' AS x")
        screen.wait_for("not run")
        os.write(terminal, b"\x03")  # Ctrl-C
        screen.wait_for("s8f> ")
        os.write(terminal, b"SELECT 'after' AS t;\r")
        screen.wait_for("after\r\n")
        screen.wait_for("s8f> ")
        os.write(terminal, b"SELECT sum(a.range * b.range) AS endless FROM range(1000000) a, range(1000000) b;\r")
        screen.wait_for("b;\r\n")
        os.write(terminal, b"\x03")  # Ctrl-C: the query (a million million rows) is cancelled
        screen.wait_for("s8f> ")
        os.write(terminal, b"\x04")  # Ctrl-D
        status = screen.wait_exit(pid)
    finally:
        screen.close(pid)
    assert status == 0, screen.text
    assert "x\r\nnot run" not in screen.text  # the cancelled line never ran
    assert "t\r\nafter\r\n" in screen.text
    assert "endless\r\n" not in screen.text
    assert "SELECT 'after' AS t;" in (tmp_path / ".s8f_duck_history").read_text()


class Screen:
    """What the program writes on its terminal, read as it comes."""

    def __init__(self, fd: int) -> None:
        self.fd, self.text = fd, ""

    def wait_for(self, wanted: str, timeout: float = 120) -> None:
        start = len(self.text)
        deadline = time.monotonic() + timeout
        while wanted not in self.text[start:] and time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                try:
                    self.text += os.read(self.fd, 4096).decode(errors="replace")
                except OSError:
                    break
        assert wanted in self.text[start:], f"{wanted!r} never came: {self.text!r}"

    def wait_exit(self, pid: int, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            select.select([self.fd], [], [], 0.2)
            try:
                self.text += os.read(self.fd, 4096).decode(errors="replace")
            except OSError:
                pass
        raise AssertionError(f"the prompt did not end: {self.text!r}")

    def close(self, pid: int) -> None:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)
