"""A scratch checkout, for tests that run `make` and the README's commands as a user would
without writing into the real checkout: the repository's code through symbolic links,
and experiments/ of its own for the outputs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, S8F

VENV = Path(sys.executable).parent.parent  # the venv running the tests: its s8f-duck is the one tested


def scratch_checkout(root: Path) -> Path:
    """root/checkout: Makefile, s8f_duck, sql, examples and .venv (the venv running the
    tests) linked; pyproject.toml copied and dated before the venv's install stamp, so
    that make does not install again; experiments/demo with a copy of the demo dump (a
    test may touch it); and root/shared linked to ../shared when S8f is there, where the
    Makefile looks for it. Skips when the venv was not made by `make install`."""
    if not (VENV / ".installed").is_file():
        pytest.skip(f"the make targets need a venv made by `make install`; {VENV} was not")
    checkout = root / "checkout"
    checkout.mkdir()
    for name in ("Makefile", "s8f_duck", "sql", "examples"):
        (checkout / name).symlink_to(REPO / name)
    (checkout / ".venv").symlink_to(VENV)
    shutil.copyfile(REPO / "pyproject.toml", checkout / "pyproject.toml")
    os.utime(checkout / "pyproject.toml", (0, 0))
    (checkout / "experiments" / "demo").mkdir(parents=True)
    demo = Path("experiments") / "demo" / "gh-issues-demo.json"
    shutil.copyfile(REPO / demo, checkout / demo)
    if S8F.is_dir():
        (root / "shared").symlink_to(S8F.parent)
    return checkout


def make_environment() -> dict[str, str]:
    """The environment without the settings of a make that may be running the tests."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}


def make(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=checkout, capture_output=True, text=True,
                          env=make_environment(), check=False)  # fmt: skip


def sandbox_or_skip() -> None:
    from s8f_duck.runs import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"no sandbox for `s8f-duck run` here: {exc}")
