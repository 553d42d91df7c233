"""What a new builder still trips over (issue 43), each shown by the real command: the
message says what happened and what to do, and a refused command leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import issue, run_cli, write_json


def _freeze(tmp_path: Path, raw: Path, *extra: str, source: str = "github.com/huggingface/datasets/issues") -> Any:
    out = tmp_path / "out" / "corpus"
    return run_cli("freeze", raw, "--source", source, "--public", out / "p.json", "--answers", out / "a.json",
                   "--report", out / "r.json", *extra)  # fmt: skip


def _one_line(done: Any, command: str, *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"s8f-duck {command}: error: "), line
    for word in words:
        assert word in line, line
    return line


def test_another_repositorys_dump_is_told_which_redaction_map_scrubbed_it(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "raw.json", [issue(k, body="NVME SSD Samsung 960 EVO") for k in range(1, 4)])
    done = _freeze(tmp_path, raw, "--min-records", "1")
    assert done.returncode == 0, done.stderr
    assert "redaction map: S8f's own" in done.stdout and "give --redactions MAP" in done.stdout, done.stdout
    mine = write_json(tmp_path / "mine.json", [])
    (tmp_path / "b").mkdir()
    chosen = _freeze(tmp_path / "b", raw, "--min-records", "1", "--redactions", mine)
    assert chosen.returncode == 0 and "redaction map" not in chosen.stdout, chosen.stdout
    public = json.loads((tmp_path / "b" / "out" / "corpus" / "p.json").read_text(encoding="utf-8"))
    assert public["records"][0]["body"] == "NVME SSD Samsung 960 EVO"
    (tmp_path / "c").mkdir()
    s8f = _freeze(tmp_path / "c", raw, "--min-records", "1", source="github.com/anthony-chaudhary/fak/issues")
    assert s8f.returncode == 0 and "redaction map" not in s8f.stdout, s8f.stdout


def _pull_request(number: int) -> dict[str, Any]:
    url = f"https://github.com/x/y/pull/{number}"
    return {"number": number, "title": "t", "body": "", "state": "open", "labels": [],
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "closed_at": None,
            "html_url": url, "pull_request": {"html_url": url}}  # fmt: skip


def test_a_dump_of_pull_requests_only_says_how_many_were_dropped(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "prs.json", [_pull_request(k) for k in range(1, 8)])
    _one_line(_freeze(tmp_path, raw), "freeze", "no issue records to freeze", "7 pull requests dropped")
    assert not (tmp_path / "out").exists()  # no empty output directory left behind


def test_a_tiny_dump_is_told_about_min_records(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "raw.json", [issue(1), issue(2)])
    _one_line(_freeze(tmp_path, raw), "freeze", "2 records, fewer than the minimum of 50", "--min-records")
    assert not (tmp_path / "out").exists()
    empty = write_json(tmp_path / "empty.json", [])
    line = _one_line(_freeze(tmp_path, empty, "--min-records", "0"), "freeze", "no issue records to freeze")
    assert "minimum of 1" not in line
    assert not (tmp_path / "out").exists()
    assert _freeze(tmp_path, raw, "--min-records", "0").returncode == 0
    assert (tmp_path / "out" / "corpus" / "p.json").is_file()
