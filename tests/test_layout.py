"""The package's layout: one folder per concern, each importing only the folders below it.

The contracts are import-linter's, in pyproject.toml ([tool.importlinter]); these tests run
its own command on the package, and on a copy with a deliberately wrong import to show that
the check can fail. Each folder's __init__.py says what it may import, and says the same as
the contracts; docs/architecture.md's map names every folder and module.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "s8f_duck"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = CONFIG["tool"]["importlinter"]["contracts"]
FOLDERS = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
NOT_CODE = {"data", "sql", "__pycache__"}  # the package's data, and sql/ installed beside the code


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter's command on the package found at root, with root's pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    shutil.copytree(PACKAGE, root / "s8f_duck", ignore=shutil.ignore_patterns("__pycache__", "sql"))
    shutil.copy(REPO / "pyproject.toml", root)
    return root


def test_every_contract_is_kept() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "wrong_import", "contract"),
    [
        # a folder importing one above it: the safety layer reaching for the command line
        ("safety/errors.py", "from s8f_duck.cli import app", "Each folder imports only the folders below it"),
        # two folders of one layer importing each other's work
        ("runs/sandbox.py", "from s8f_duck.service import server", "Each folder imports only the folders below it"),
        # the leaderboard reaching for the grader
        ("board/text.py", "from s8f_duck.grading import grade", "The leaderboard reads the runs database only"),
        # an import circle inside a folder (the one between commit.py and paths.py, put back)
        ("safety/paths.py", "from s8f_duck.safety import commit", "No import circles"),
    ],
)
def test_a_wrong_import_breaks_a_contract(package_copy: Path, module: str, wrong_import: str, contract: str) -> None:
    path = package_copy / "s8f_duck" / module
    original = path.read_text(encoding="utf-8")
    try:
        path.write_text(original + f"\n\ndef _wrong() -> None:\n    {wrong_import}  # noqa\n", encoding="utf-8")
        result = lint_imports(package_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.returncode == 1, result.stdout + result.stderr
    broken = [line for line in result.stdout.splitlines() if line.endswith("BROKEN")]
    assert any(line.startswith(contract) for line in broken), result.stdout


def may_import(folder: str) -> set[str]:
    """What the contracts let a folder import: every folder of the layers below its own,
    less what a forbidden contract takes away."""
    (layers,) = [c["layers"] for c in CONTRACTS if c["type"] == "layers"]
    ranks = {name.strip(): rank for rank, layer in enumerate(layers) for name in layer.split("|")}
    allowed = {other for other, rank in ranks.items() if rank > ranks[folder]}
    for contract in CONTRACTS:
        if contract["type"] == "forbidden" and f"s8f_duck.{folder}" in contract["source_modules"]:
            allowed -= {m.removeprefix("s8f_duck.") for m in contract["forbidden_modules"]}
    return allowed


def test_the_layers_name_every_folder() -> None:
    (layers,) = [c["layers"] for c in CONTRACTS if c["type"] == "layers"]
    named = sorted(name.strip() for layer in layers for name in layer.split("|"))
    assert named == FOLDERS
    code = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name not in NOT_CODE)
    assert code == FOLDERS, "a folder of the package without __init__.py"
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_says_what_it_may_import_as_the_contracts_do(folder: str) -> None:
    import ast

    docstring = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8")))
    assert docstring, f"s8f_duck/{folder}/__init__.py has no docstring"
    match = re.search(r"^May import: (.*?)(?:\.|\s\(|$)", docstring, re.M)
    assert match, f"s8f_duck/{folder}/__init__.py does not say what it may import"
    said = match.group(1)
    if said.startswith("every other folder"):
        assert may_import(folder) == set(FOLDERS) - {folder}
    elif said.startswith("nothing of the package"):
        assert may_import(folder) == set()
    else:
        assert {name.strip() for name in said.split(",")} == may_import(folder)


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_is_installed(folder: str) -> None:
    assert f"s8f_duck.{folder}" in CONFIG["tool"]["setuptools"]["packages"]


def test_the_architecture_map_matches_the_folders() -> None:
    """docs/architecture.md's map names each folder and each of its modules, and nothing
    that is not there."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The Python package", 1)[1].split("\n## ", 1)[0]
    folders = re.findall(r"^\| `s8f_duck/(\w+)/` \|", section, re.M)
    assert sorted(folders) == FOLDERS
    for row in re.findall(r"^\| `s8f_duck/(\w+)/` \|([^\n]*)", section, re.M):
        folder, cells = row
        named = set(re.findall(r"`(\w+)\.py`", cells))
        present = {p.stem for p in (PACKAGE / folder).glob("*.py") if p.name != "__init__.py"}
        assert named == {f"{m}" for m in present}, folder
