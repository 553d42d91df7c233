"""A command's path arguments, checked before any work is done: the rules of paths.py, then
interrupted commits beside the inputs finished or undone (commit.recover_beside), so that a
command reading a triple reads a whole one. (Here, not in paths.py: commit.py itself uses
the path checks.)"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from s8f_duck.safety import commit, paths


def check(inputs: Mapping[str, Path | None], outputs: Mapping[str, Path | None] | None = None) -> None:
    """Refuse the arguments that paths.check refuses, then recover beside the inputs;
    `inputs` and `outputs` map each option's name as the user typed it ("--public", "RAW")
    to its path, None when not given."""
    paths.check(inputs, outputs)
    commit.recover_beside([Path(path) for path in inputs.values() if path is not None])
