"""No control byte from an input reaches the terminal or a log line: a submission's strings,
a run's name, a labels file's adjudicator, a team's name are printed escaped by `grade`,
`run`, `runs`, `agree` and `serve` (safety/printable.py; the real commands)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import httpx
import pytest
from adjudicated import labelled, labels_file
from conftest import CLI, S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli
from test_run import run_args, runs_rows

from s8f_duck.safety.printable import printable

pytestmark = needs_s8f
SCREEN = "\x1b]0;owned\x07\x1b[2J\x1b[H\rPASS: 680/680 \x9b31m\u202e"  # title, clear, home, CR, C1 CSI, RTL override


def controls(text: str) -> list[str]:
    """The characters of text a terminal would act on (line breaks apart)."""
    return [c for c in text if c != "\n" and not c.isprintable()]


def control_bytes(text: str) -> list[str]:
    """C0 control bytes and DEL: what JSON written as Go writes it (a grade's bytes, which stay
    the original tool's) never holds raw; it keeps other characters, U+009B and U+202E too."""
    return [c for c in text if c != "\n" and (ord(c) < 0x20 or c == "\x7f")]


def test_printable_escapes_every_control_character_and_keeps_text() -> None:
    assert printable(SCREEN) == "\\x1b]0;owned\\x07\\x1b[2J\\x1b[H\\rPASS: 680/680 \\x9b31m\\u202e"
    assert printable("état 日本 ✓ plain") == "état 日本 ✓ plain"
    assert controls(printable("".join(map(chr, range(0x200))))) == []


@pytest.fixture(scope="module")
def hostile_submissions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The SQL baseline's submission with a forged corpus_sha256, and with a state_counts key
    that is an escape sequence (a wrong count, and a count that is not a number)."""
    folder = tmp_path_factory.mktemp("hostile-submissions")
    folder.chmod(0o755)
    base = folder / "base.json"
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", base).returncode == 0
    made = {}
    for name, change in {
        "corpus": lambda s: s.update(corpus_sha256=SCREEN),
        "key": lambda s: s["aggregates"]["state_counts"].update({SCREEN: 3}),
        "key-not-a-number": lambda s: s["aggregates"]["state_counts"].update({SCREEN: "x"}),
    }.items():  # fmt: skip
        submission = json.loads(base.read_bytes())
        change(submission)
        made[name] = folder / f"{name}.json"
        made[name].write_text(json.dumps(submission))
        made[name].chmod(0o644)
    return made


@pytest.mark.parametrize("form", ["summary", "table", "json"])
@pytest.mark.parametrize("which", ["corpus", "key", "key-not-a-number"])
def test_grade_prints_no_control_byte(hostile_submissions: dict[str, Path], form: str, which: str) -> None:
    result = run_cli("grade", "--answers", S8F_ANSWERS, hostile_submissions[which], "--format", form)
    assert result.returncode in (1, 2), result.stderr
    shown = control_bytes if form == "json" else controls
    assert shown(result.stdout) == [] and controls(result.stderr) == [], result.stdout + result.stderr
    if which == "corpus" and form == "summary":
        assert "NOT GRADED: the submission is bound to corpus \\x1b]0;owned\\x07" in result.stdout, result.stdout
    several = run_cli("grade", "--answers", S8F_ANSWERS, *hostile_submissions.values(), "--format", form)
    assert shown(several.stdout) == [] and controls(several.stderr) == [], several.stdout + several.stderr


def test_run_and_runs_print_no_control_byte(tmp_path: Path, hostile_submissions: dict[str, Path]) -> None:
    """A run named with escapes, a submission quoting them in its error, a candidate saying
    them on stderr: `run`'s lines, the stored message and `runs` (table and CSV; JSON
    escapes them itself) show them escaped."""
    said = []
    for which, path in hostile_submissions.items():
        result = run_cli(*run_args(tmp_path, f"{which} {SCREEN}", "--candidate-dir", path.parent), "--", "/bin/sh",
                         "-c", f"cp {path.name} /out/submission.json; printf '%s\\n' '{SCREEN}' >&2; exit 0")  # fmt: skip
        assert result.returncode == 1, result.stderr
        said.append(result.stdout + result.stderr)
    assert [controls(text) for text in said] == [[]] * 3, said
    assert all("\\x1b" in text for text in said), said
    rows = runs_rows(tmp_path)
    assert [row["outcome"] for row in rows] == ["unusable_submission", "graded", "unusable_submission"], rows
    assert [controls(row["message"] or "") for row in rows] == [[]] * 3, [row["message"] for row in rows]
    for form in ("table", "csv", "json"):
        listed = run_cli("runs", "--runs", tmp_path / "runs.duckdb", "--format", form)
        assert listed.returncode == 0 and (control_bytes if form == "json" else controls)(listed.stdout) == [], listed.stdout
        assert "\\x1b]0;owned" in listed.stdout or "\\u001b]0;owned" in listed.stdout, listed.stdout


def test_agree_prints_no_control_byte(packet: Path, tmp_path: Path) -> None:
    first = labels_file(tmp_path / "a.json", packet, f"model {SCREEN}", labelled(packet, lambda k, f: f["values"][k % 2]))
    second = labels_file(tmp_path / "b.json", packet, "model-b", labelled(packet, lambda k, f: f["values"][0]))
    for form in ("table", "csv", "json"):
        result = run_cli("adjudicate", "agree", packet, first, second, "--resamples", "20", "--format", form)
        assert result.returncode == 0, result.stderr
        assert (control_bytes if form == "json" else controls)(result.stdout) == [], result.stdout
        assert controls(result.stderr) == [], result.stderr


def test_serve_logs_no_control_byte(tmp_path: Path, hostile_submissions: dict[str, Path]) -> None:
    team = f"team {SCREEN}"
    made = run_cli("team", "--teams", tmp_path / "teams.json", team)
    assert made.returncode == 0, made.stderr
    assert controls(made.stdout + made.stderr) == []
    process = subprocess.Popen(
        [str(CLI), "serve", "--answers", str(S8F_ANSWERS), "--public", str(S8F_PUBLIC), "--db",
         str(tmp_path / "service.duckdb"), "--teams", str(tmp_path / "teams.json"), "--port", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    log = [process.stderr.readline()]
    drained = threading.Thread(target=lambda: log.append(process.stderr.read()), daemon=True)  # type: ignore[union-attr]
    drained.start()
    try:
        url = log[0].split()[2].rstrip("/")
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {made.stdout.strip()}"}, timeout=60) as client:
            for path in hostile_submissions.values():
                client.post("/submissions", content=path.read_bytes())
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        drained.join(timeout=10)
    text = "".join(log)
    assert "team \\x1b]0;owned" in text, text
    assert controls(text) == [], text
