"""`sql` reads the corpus and nothing else: a query can neither write a file, nor attach a
database, nor read any file, and cannot switch that back on; the shell likewise."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import CLI
from processes import DEMO, cli, environment, freeze_args


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    result = cli(*freeze_args(DEMO, out, "demo"), "--db", out / "corpus.duckdb", tmpdir=out)
    assert result.returncode == 0, result.stderr
    return out


def _escaping(d: Path) -> dict[str, tuple[str, Path | None]]:
    """query -> the file it would create (None: it would only read)."""
    return {
        "copy to": (f"COPY (SELECT * FROM answers) TO '{d}/leak.csv'", d / "leak.csv"),
        "copy to parquet": (f"COPY issues TO '{d}/leak.parquet' (FORMAT parquet)", d / "leak.parquet"),
        "export": (f"EXPORT DATABASE '{d}/exported'", d / "exported"),
        "attach a new file": (f"ATTACH '{d}/new.duckdb' AS n", d / "new.duckdb"),
        "read_text": (f"SELECT * FROM read_text('{d}/secret.txt')", None),
        "read_blob": (f"SELECT * FROM read_blob('{d}/secret.txt')", None),
        "read_csv": (f"SELECT * FROM read_csv('{d}/secret.csv')", None),
        "a file as a table": (f"SELECT * FROM '{d}/secret.csv'", None),
        "glob": (f"SELECT * FROM glob('{d}/*')", None),
        "enable access again": ("SET enable_external_access = true", None),
        "unlock": ("SET lock_configuration = false", None),
        "load an extension": ("LOAD httpfs", None),
    }


CASES = [("--db", case) for case in _escaping(Path("/x"))]
CASES += [("--public", case) for case in ("copy to", "attach a new file", "read_text", "enable access again")]


@pytest.mark.parametrize("source, case", CASES, ids=[f"{source} {case}" for source, case in CASES])
def test_a_query_cannot_touch_files(case: str, source: str, corpus: Path, tmp_path: Path) -> None:
    query, creates = _escaping(tmp_path)[case]
    (tmp_path / "secret.txt").write_text("the answers are 42\n")
    (tmp_path / "secret.csv").write_text("a,b\n1,2\n")
    given = corpus / ("corpus.duckdb" if source == "--db" else "public.json")
    result = cli("sql", source, given, query, tmpdir=tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("s8f-duck sql: error: query failed:")
    assert "42" not in result.stdout and "1,2" not in result.stdout
    if creates is not None:
        assert not creates.exists()


@pytest.mark.parametrize("source", ["--db", "--public"])
def test_queries_on_the_corpus_still_work(source: str, corpus: Path, tmp_path: Path) -> None:
    given = corpus / ("corpus.duckdb" if source == "--db" else "public.json")
    result = cli("sql", source, given, "SELECT count(*) AS n FROM issues", "--format", "csv", tmpdir=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "n\n64\n"


def _shell(args: list[str | Path], stdin: str, tmp_path: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {**environment(tmp_path), "PATH": path}
    return subprocess.run([str(CLI), "sql", *map(str, args)], input=stdin, capture_output=True, text=True, env=env,
                          check=False, timeout=300)  # fmt: skip


def test_the_shell_cannot_touch_files(corpus: Path, tmp_path: Path) -> None:
    # no `duckdb` on PATH: s8f-duck's own prompt
    stdin = f"COPY issues TO '{tmp_path}/leak.csv';\nSELECT count(*) AS n FROM issues;\n"
    result = _shell(["--public", corpus / "public.json", "--format", "csv"], stdin, tmp_path, path="/nonexistent")
    assert result.returncode == 0, result.stderr
    assert "error: query failed: Permission Error" in result.stderr
    assert "n\n64" in result.stdout
    assert not (tmp_path / "leak.csv").exists()


def test_the_duckdb_shell_is_started_read_only_and_safe(corpus: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "duckdb"  # records how it was started
    # answers the probe as a duckdb shell that can read the file would (prompt.PROBE_QUERY)
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/argv\nif [ $# -gt 3 ]; then echo "s8f-duck probe 42"; fi\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    result = _shell(["--db", corpus / "corpus.duckdb"], "", tmp_path, path=f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "argv").read_text().split("\n")[:3] == ["-readonly", "-safe", str(corpus / "corpus.duckdb")]
    assert not [p for p in tmp_path.iterdir() if "s8f-duck-work-" in p.name]  # removed before the exec
