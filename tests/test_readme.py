"""The README's commands work as shown.

Every command of the README's ```sh blocks, and every `$` command of its ```console
blocks, runs in README order with bash, in a scratch checkout (tests/checkout.py) that
holds what `make build` and the earlier commands made. A command exits 0 unless it says
`# exits N`; a console block's other lines are the output its command must print. A
```python block whose first line is `# PATH: ...` is the file PATH, written when the
README reaches it.

Not run, and reported as skipped: the `gh` commands, which need the network (the demo
dump stands in for the `issues.json` they write, in the gh form or the REST form they
print); `make test`, which is this suite; S8f's commands when ../shared/s8f is absent;
the sandboxed runs (and what reads their records) where no sandbox can be made. `serve`
runs in the background on a free port, which replaces the README's 8765 in later
commands.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from checkout import make_environment, sandbox_or_skip, scratch_checkout
from conftest import REPO, S8F_RAW, run_cli

README = REPO / "README.md"
README_PORT = "8765"
SANDBOXED = re.compile(r"make (baseline|run|leaderboard)\b|s8f-duck (run|runs|leaderboard) ")
S8F_ONLY = re.compile(r"\bmake s8f\b|DATASET=s8f")


@dataclass
class Step:
    line: int
    kind: str  # "command" or "file"
    text: str  # the command, or the file's contents
    path: str = ""  # a file's path
    output: str | None = None  # what a console block shows the command printing
    status: int = 0


def commands(block: str, first_line: int) -> list[Step]:
    """The commands of a ```sh block: `\\` continuations joined, heredocs kept whole."""
    steps: list[Step] = []
    lines = block.split("\n")
    i = 0
    while i < len(lines):
        start, text = i, lines[i]
        i += 1
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        while text.endswith("\\") and i < len(lines):
            text += "\n" + lines[i]
            i += 1
        heredoc = re.search(r"<<'?(\w+)'?", text)
        if heredoc:
            while i < len(lines) and lines[i] != heredoc.group(1):
                text += "\n" + lines[i]
                i += 1
            text += "\n" + heredoc.group(1)
            i += 1
        status = re.search(r"#\s*exits (\d+)", text.split("\n")[-1])
        steps.append(Step(first_line + start, "command", text, status=int(status.group(1)) if status else 0))
    return steps


def console(block: str, first_line: int) -> list[Step]:
    """The `$` commands of a ```console block, each with the lines it prints."""
    steps: list[Step] = []
    for n, line in enumerate(block.split("\n")):
        if line.startswith("$ "):
            steps.append(Step(first_line + n, "command", line[2:], output=""))
        elif steps:
            steps[-1].output = f"{steps[-1].output}{line}\n"
    return steps


def readme_steps() -> list[Step]:
    text = README.read_text(encoding="utf-8")
    steps: list[Step] = []
    for block in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S):
        language, body = block.group(1), block.group(2).rstrip("\n")
        first_line = text.count("\n", 0, block.start(2)) + 1
        if language == "sh":
            steps += commands(body, first_line)
        elif language == "console":
            steps += console(body, first_line)
        elif language == "python" and (path := re.match(r"# ([\w./-]+\.py):", body)):
            steps.append(Step(first_line, "file", body + "\n", path=path.group(1)))
    return steps


STEPS = readme_steps()


def free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


class Session:
    """The README followed from the top, once for this module, as far as each test needs."""

    def __init__(self, root: Path) -> None:
        self.checkout = scratch_checkout(root)
        self.port = free_port()
        self.done: dict[int, subprocess.CompletedProcess[str] | str] = {}
        self.service: subprocess.Popen[bytes] | None = None

    def reach(self, index: int) -> subprocess.CompletedProcess[str] | str:
        """Follow the README up to STEPS[index]; its result, or why it was skipped."""
        for i in range(len(self.done), index + 1):
            self.done[i] = self.take(STEPS[i])
        return self.done[index]

    def take(self, step: Step) -> subprocess.CompletedProcess[str] | str:
        if step.kind == "file":
            path = self.checkout / step.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(step.text, encoding="utf-8")
            return "written"
        command = step.text.replace(f"127.0.0.1:{README_PORT}", f"127.0.0.1:{self.port}")
        if command.startswith("gh "):
            return self.stand_in(command)
        if re.match(r"make test\b", command):
            return "`make test` runs this suite"
        if S8F_ONLY.search(command) and not S8F_RAW.is_file():
            return f"needs the S8f dump, which is not at {S8F_RAW} (../shared is absent)"
        if SANDBOXED.search(command):
            try:
                sandbox_or_skip()
            except pytest.skip.Exception as exc:
                return str(exc)
        if " serve " in command:
            return self.serve(command)
        return subprocess.run(["bash", "-c", command], cwd=self.checkout, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, env=make_environment(), timeout=900, check=False)  # fmt: skip

    def stand_in(self, command: str) -> str:
        """What a `gh` fetch would have written, made from the demo dump instead."""
        target = self.checkout / command.rsplit(">", 1)[1].strip()
        demo = self.checkout / "experiments" / "demo" / "gh-issues-demo.json"
        if command.startswith("gh api"):
            script = REPO / "experiments" / "rest_dump.py"
            subprocess.run([sys.executable, str(script), str(demo), str(target), "--form", "pages", "-q"], check=True)
            return f"needs the network; the demo dump in REST pages stands in for {target.name}"
        shutil.copyfile(demo, target)
        return f"needs the network; the demo dump stands in for {target.name}"

    def serve(self, command: str) -> subprocess.CompletedProcess[str]:
        """Start the service in the background (on the free port) and wait until it answers."""
        log = self.checkout.parent / "serve.stderr"
        with log.open("wb") as stderr:
            self.service = subprocess.Popen(
                ["bash", "-c", f"exec {command} --port {self.port}"],
                cwd=self.checkout, stdout=subprocess.DEVNULL, stderr=stderr, env=make_environment(),
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.service.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=5) as answer:
                    return subprocess.CompletedProcess(command, 0 if answer.status == 200 else 1, "", "")
            except OSError:
                time.sleep(0.2)
        why = f"the service did not answer within 60 s: {log.read_text()}"
        return subprocess.CompletedProcess(command, self.service.poll() or 1, "", why)

    def close(self) -> None:
        if self.service is not None and self.service.poll() is None:
            self.service.terminate()
            self.service.wait(timeout=30)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    readme = Session(tmp_path_factory.mktemp("readme"))
    yield readme
    readme.close()


def test_the_readme_shows_commands_and_output() -> None:
    assert sum(s.kind == "command" for s in STEPS) >= 20
    assert any(s.output for s in STEPS)
    assert any(s.status for s in STEPS)


@pytest.mark.parametrize("index", range(len(STEPS)),
                         ids=[f"L{s.line}:{(s.path or s.text.split(chr(10))[0])[:48]}" for s in STEPS])  # fmt: skip
def test_readme_command_works_as_shown(session: Session, index: int) -> None:
    step = STEPS[index]
    result = session.reach(index)
    if isinstance(result, str):
        if step.kind == "file":
            return
        pytest.skip(f"README line {step.line}: {result}")
    shown = f"README line {step.line}: {step.text}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    assert result.returncode == step.status, shown
    if step.output is not None:
        assert result.stdout == step.output, shown


def test_the_submission_example_is_the_demo_corpus_s_own(tmp_path: Path) -> None:
    """The README's example submission: bound to the demo corpus, its issue-1 answer and
    its aggregates what the answer bundle holds (the lists and maps cut short)."""
    (example,) = re.findall(r"^```json\n(.*?)^```$", README.read_text(encoding="utf-8"), re.M | re.S)
    submission = json.loads(example)
    out = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    frozen = run_cli("freeze", REPO / "experiments" / "demo" / "gh-issues-demo.json", "--source",
                     "github.com/demo/widgets/issues?state=all (hand-written demo dump)",
                     *(arg for name, path in out.items() for arg in (f"--{name}", path)))  # fmt: skip
    assert frozen.returncode == 0, frozen.stderr
    bundle = json.loads(out["answers"].read_bytes())
    assert submission["schema"] == "fak-microcontext-submission/1"
    assert submission["corpus_sha256"] == hashlib.sha256(out["public"].read_bytes()).hexdigest()
    (answer,) = submission["answers"]
    gold = next(a for a in bundle["answers"] if a["id"] == answer["id"])
    assert answer == {k: v for k, v in gold.items() if k != "split"}
    shown, aggregates = submission["aggregates"], bundle["aggregates"]
    assert shown["state_counts"] == aggregates["state_counts"]
    assert shown["label_counts"].items() <= aggregates["label_counts"].items()
    for top in ("newest_issue_ids", "most_recently_updated_issue_ids"):
        assert shown[top] == aggregates[top][: len(shown[top])]
