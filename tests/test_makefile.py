"""The Makefile: a corpus is re-frozen only from its own dump (never from the demo's after
the demo dump changes, as a `git pull` changes it), `make help`, `make s8f` without an
error line. Each test runs make in a scratch checkout (tests/checkout.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from checkout import make, sandbox_or_skip, scratch_checkout
from conftest import REPO, issue, needs_s8f, run_cli, write_json

CORPUS_FILES = ("public.json", "answers.json", "report.json")


def other_dump(path: Path) -> Path:
    """A dump of another repository (60 issues: make build's default --min-records is 50)."""
    records = [issue(n, f"Other repository, issue {n}", f"see #{n - 1}" if n % 4 == 0 else "", labels=["other"])
               for n in range(1, 61)]  # fmt: skip
    return write_json(path, records)


def contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def touch_demo(checkout: Path) -> None:
    """What a `git pull` that changes the demo dump does to it: a newer modification time."""
    demo = checkout / "experiments" / "demo" / "gh-issues-demo.json"
    later = demo.stat().st_mtime + 3600
    os.utime(demo, (later, later))


def test_baseline_on_a_corpus_frozen_by_hand_leaves_it_as_it_was(tmp_path: Path) -> None:
    """The issue's case: a corpus of another dump, frozen without make (so no record of its
    dump), the demo dump touched, then `make baseline OUT=` that corpus."""
    checkout = scratch_checkout(tmp_path)
    sandbox_or_skip()
    corpus = tmp_path / "mine"
    corpus.mkdir()
    frozen = run_cli("freeze", other_dump(tmp_path / "issues.json"), "--source", "github.com/other/repo",
                     *(arg for name in CORPUS_FILES for arg in (f"--{name[:-5]}", corpus / name)))  # fmt: skip
    assert frozen.returncode == 0, frozen.stderr
    before = contents(corpus)
    touch_demo(checkout)
    result = make(checkout, "baseline", f"OUT={corpus}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout, result.stdout
    assert f"using {corpus} as it is" in result.stdout
    after = contents(corpus)
    assert {name: after[name] for name in before} == before
    assert "made-from.txt" not in after
    assert json.loads(after["public.json"])["source"] == "github.com/other/repo"


def test_a_corpus_make_built_is_refrozen_only_from_its_own_dump(tmp_path: Path) -> None:
    checkout = scratch_checkout(tmp_path)
    corpus = tmp_path / "mine"
    dump = other_dump(tmp_path / "issues.json")
    built = make(checkout, "build", f"RAW={dump}", "SOURCE=github.com/other/repo", f"OUT={corpus}")
    assert built.returncode == 0, built.stdout + built.stderr
    assert (corpus / "made-from.txt").read_text() == f"{dump}\ngithub.com/other/repo\n"
    before = contents(corpus)

    touch_demo(checkout)  # not this corpus's dump: nothing is rebuilt
    result = make(checkout, "verify", f"OUT={corpus}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "freeze" not in result.stdout
    assert contents(corpus) == before

    # another dump named for this corpus is refused, whether built on the way or asked for
    for target in ("verify", "build"):
        refused = make(checkout, target, f"OUT={corpus}", f"RAW={checkout / 'experiments/demo/gh-issues-demo.json'}")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert f"{corpus} holds the corpus frozen from {dump}" in refused.stderr
        assert contents(corpus) == before

    # its own dump changed: re-frozen from it, with the source it was built with
    later = dump.stat().st_mtime + 3600
    os.utime(dump, (later, later))
    result = make(checkout, "verify", f"OUT={corpus}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"freeze {dump} --source 'github.com/other/repo'" in result.stdout
    assert contents(corpus)["public.json"] == before["public.json"]


def test_the_default_corpus_is_built_and_rebuilt_from_the_demo(tmp_path: Path) -> None:
    checkout = scratch_checkout(tmp_path)
    out = checkout / "experiments" / "demo" / "out"
    first = make(checkout, "verify")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "freeze" in first.stdout and (out / "public.json").is_file()
    assert make(checkout, "verify").stdout.count("freeze") == 0
    touch_demo(checkout)
    again = make(checkout, "verify")
    assert again.returncode == 0 and "freeze" in again.stdout, again.stdout + again.stderr


def test_make_help_lists_every_target_and_variable(tmp_path: Path) -> None:
    checkout = scratch_checkout(tmp_path)
    result = make(checkout, "help")
    assert result.returncode == 0, result.stderr
    makefile = (checkout / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.M)
    assert phony is not None
    listed = set(re.findall(r"^  ([a-z0-9]+) ", result.stdout, re.M))
    assert set(phony.group(1).split()) <= listed, set(phony.group(1).split()) - listed
    for variable in ("DATASET", "RAW", "SOURCE", "OUT", "ANSWERS", "SUBMISSION", "RUNS", "CANDIDATE", "S8F"):
        assert re.search(rf"^  {variable} .*\[", result.stdout, re.M), variable
    assert "[experiments/demo/out]" in result.stdout


@needs_s8f
def test_make_s8f_checks_the_digests_without_an_error_line(tmp_path: Path) -> None:
    checkout = scratch_checkout(tmp_path)
    result = make(checkout, "s8f")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "public.json: OK" in result.stdout and "answers.json: OK" in result.stdout
    assert '"scrubbed_matches": 30' in result.stdout  # the one difference from the published report
    assert "Error" not in result.stdout + result.stderr and "ignored" not in result.stdout + result.stderr


@pytest.mark.parametrize("value", ["experiments/mine/public.json", "experiments/demo/out/public.json"])
def test_outputs_of_the_readme_examples_are_ignored_by_git(value: str) -> None:
    result = subprocess.run(["git", "check-ignore", "-q", "--no-index", value], cwd=REPO, check=False)
    assert result.returncode == 0, f"{value} is not ignored by git"


def test_make_run_of_a_run_that_does_not_pass_reports_it_without_a_make_error(tmp_path: Path) -> None:
    """A run recorded but not passing ends `make run` well, with a plain line; make prints no
    `*** Error`. A run that cannot be made still fails the target."""
    checkout = scratch_checkout(tmp_path)
    sandbox_or_skip()
    result = make(checkout, "run", "CANDIDATE=/bin/true", "NAME=writes-nothing")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "it did not pass" in result.stdout and "***" not in result.stdout + result.stderr
    broken = make(checkout, "run", "CANDIDATE=/bin/true", "RUN_ARGS=--time-limit nonsense")
    assert broken.returncode != 0 and "time-limit" in broken.stderr


def test_make_install_says_what_it_does_and_hides_pip(tmp_path: Path) -> None:
    """Each step of the install is a `make: ...` line, no Makefile comment is echoed, and
    pip's own output (its banners) goes to .venv/pip.log (the recipe is read, not run:
    installing takes a minute)."""
    dry = subprocess.run(["make", "-n", "-B", ".venv/.installed"], cwd=REPO, capture_output=True, text=True,
                         check=False)  # fmt: skip
    commands = dry.stdout.replace("\\\n", " ").splitlines()
    assert not any(line.lstrip().startswith("#") for line in commands), commands
    assert sum(line.startswith("echo \"make: ") for line in commands) >= 3
    assert all("pip.log" in line for line in commands if "pip install" in line)
