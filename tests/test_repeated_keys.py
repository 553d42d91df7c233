"""Labels files, packets and semantic bundles with a key repeated in one object are refused
(exit 2, one line naming the file and the key), not read as the last one alone (issue 41)."""

from __future__ import annotations

from pathlib import Path

from adjudicated import labelled, labels_file, made_gold
from conftest import S8F_ANSWERS, needs_s8f, run_cli

pytestmark = needs_s8f


def _repeat_first(text: str, key: str, value: str) -> str:
    """The document with `"key": value` added again at the start of the top object."""
    assert text.startswith("{")
    return "{" + f'"{key}": {value}, ' + text[1:]


def _refused(result: object, path: Path, key: str) -> None:
    assert result.returncode == 2, result.stderr  # type: ignore[attr-defined]
    (line,) = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert str(path) in line and f"the key {key!r} is given twice in one object" in line, line


def test_a_labels_file_with_a_repeated_labels_key_is_refused(packet: Path, tmp_path: Path) -> None:
    entries = labelled(packet, lambda k, f: f["values"][0])
    good = labels_file(tmp_path / "good.json", packet, "model-a", entries)
    other = labels_file(tmp_path / "other.json", packet, "model-b", entries)
    assert run_cli("adjudicate", "agree", packet, good, other).returncode == 0
    twice = tmp_path / "twice.json"
    twice.write_text(_repeat_first(good.read_text(), "labels", "[]"))  # the later one would win: all the labels
    _refused(run_cli("adjudicate", "agree", packet, twice, other), twice, "labels")
    nested = tmp_path / "nested.json"
    nested.write_text(good.read_text().replace('"field":', '"field": "kind", "field":', 1))
    _refused(run_cli("adjudicate", "agree", packet, nested, other), nested, "field")


def test_a_packet_with_a_repeated_key_is_refused(packet: Path, tmp_path: Path) -> None:
    entries = labelled(packet, lambda k, f: f["values"][0])
    twice = tmp_path / "packet.json"
    twice.write_text(_repeat_first(packet.read_text(), "records", "[]"))
    good = labels_file(tmp_path / "a.json", twice, "model-a", entries)
    other = labels_file(tmp_path / "b.json", twice, "model-b", entries)
    _refused(run_cli("adjudicate", "agree", twice, good, other), twice, "records")


def test_a_semantic_bundle_with_a_repeated_key_is_refused(packet: Path, tmp_path: Path) -> None:
    semantic = made_gold(packet, tmp_path)
    twice = tmp_path / "semantic-twice.json"
    twice.write_text(_repeat_first(semantic.read_text(), "gold", "[]"))
    submission = tmp_path / "submission.json"
    submission.write_bytes(S8F_ANSWERS.read_bytes())
    _refused(run_cli("grade", "--answers", S8F_ANSWERS, "--submission", submission, "--semantic", twice), twice, "gold")
