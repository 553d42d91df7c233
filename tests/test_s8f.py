"""Freezing the real S8f dump reproduces the published artifacts byte for byte."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest
from conftest import (
    S8F_ANSWERS_SHA256,
    S8F_PUBLIC_SHA256,
    S8F_RAW,
    S8F_REPORT,
    S8F_SOURCE,
    needs_s8f,
    run_cli,
)  # fmt: skip

pytestmark = needs_s8f


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("s8f")
    result = run_cli(
        "freeze", S8F_RAW, "--source", S8F_SOURCE, "--db", out / "corpus.duckdb",
        "--public", out / "public.json", "--answers", out / "answers.json", "--report", out / "report.json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_public_corpus_and_answer_bundle_are_byte_identical(frozen: Path) -> None:
    assert sha256(frozen / "public.json") == S8F_PUBLIC_SHA256
    assert sha256(frozen / "answers.json") == S8F_ANSWERS_SHA256


def test_report_equals_published_except_scrubbed_matches(frozen: Path) -> None:
    ours = json.loads((frozen / "report.json").read_bytes())
    published = json.loads(S8F_REPORT.read_bytes())
    assert ours["scrubbed_matches"] == 0  # the raw dump was rebuilt from already-scrubbed text
    assert published["scrubbed_matches"] == 30
    assert list(ours) == list(published)
    assert {k: v for k, v in ours.items() if k != "scrubbed_matches"} == {
        k: v for k, v in published.items() if k != "scrubbed_matches"
    }


def test_summary_names_the_headline_counts(frozen: Path, tmp_path: Path) -> None:
    result = run_cli(
        "freeze", S8F_RAW, "--source", S8F_SOURCE,
        "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json",
    )  # fmt: skip
    assert "records 1000: train 212 / tune 108 / test 680" in result.stdout
    assert S8F_PUBLIC_SHA256 in result.stdout


def test_freezing_twice_gives_identical_bytes(frozen: Path, tmp_path: Path) -> None:
    result = run_cli(
        "freeze", S8F_RAW, "--source", S8F_SOURCE, "--quiet",
        "--public", tmp_path / "p.json", "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json",
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout == ""
    for mine, first in (("p", "public"), ("a", "answers"), ("r", "report")):
        assert (tmp_path / f"{mine}.json").read_bytes() == (frozen / f"{first}.json").read_bytes()


def test_database_holds_the_spec_tables(frozen: Path) -> None:
    with duckdb.connect(str(frozen / "corpus.duckdb"), read_only=True) as con:
        count = lambda table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
        assert count("issues") == 1000
        assert count("reference_edges") == 2037
        assert count("duplicate_edges") == 12
        assert count("contradiction_cues") == 102
        assert count("components") == 1000
        assert count("answers") == 1000
        assert con.execute("SELECT count(DISTINCT split) FROM issues").fetchone()[0] == 3
        columns = {
            table: [c[0] for c in con.execute(f"DESCRIBE {table}").fetchall()]
            for table in ("labels", "reference_edges", "duplicate_edges", "contradiction_cues", "components")
        }
        assert columns["labels"][:2] == ["number", "label"]
        assert columns["reference_edges"][:2] == ["src", "dst"]
        assert columns["duplicate_edges"][:2] == ["src", "dst"]
        assert columns["contradiction_cues"][:2] == ["number", "marker"]
        assert columns["components"][:2] == ["number", "component"]
        for table in ("state_counts", "label_counts", "newest_issue_ids", "most_recently_updated_issue_ids"):
            assert count(table) > 0
