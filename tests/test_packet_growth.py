"""adjudicate packet --extend / --where, on the S8f dump cut by creation date (its first two
thirds, then all of it frozen keeping their splits): the extended packet keeps the older
records and their labels count in agree and gold; a --where packet holds only what it
asks for; a packet of another corpus is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from adjudicated import RUBRIC, labelled, labels_file

from conftest import S8F_RAW, needs_s8f, run_cli, write_json

pytestmark = needs_s8f


def _freeze(raw: Path, out: Path, *extra: str | Path) -> Path:
    done = run_cli("freeze", raw, "--public", out / "public.json", "--answers", out / "answers.json", "--report",
                   out / "report.json", "--source", "s8f cut by creation date", *extra)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def _packet(public: Path, output: Path, records: int, *extra: str | Path) -> dict[str, Any]:
    done = run_cli("adjudicate", "packet", "--public", public, "--rubric", RUBRIC, "--records", records,
                   "--output", output, *extra)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text())


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("grow")
    dump = sorted(json.loads(S8F_RAW.read_text()), key=lambda r: (r["createdAt"], r["number"]))
    older = _freeze(write_json(tmp / "older-raw.json", dump[: len(dump) * 2 // 3]), tmp / "older")
    third = _freeze(write_json(tmp / "third-raw.json", dump[: len(dump) // 3]), tmp / "third")
    newer = _freeze(S8F_RAW, tmp / "newer", "--keep-splits", older / "public.json")
    old_packet = _packet(older / "public.json", tmp / "old-packet.json", 10)
    labels = [labels_file(tmp / f"{name}.json", tmp / "old-packet.json", name,
                          labelled(tmp / "old-packet.json", lambda k, f, n=n: f["values"][(k * n) % 2]))
              for n, name in ((1, "a"), (2, "b"))]  # fmt: skip
    extended = _packet(newer / "public.json", tmp / "extended.json", 14, "--extend", tmp / "old-packet.json")
    return {"tmp": tmp, "older": older, "third": third, "newer": newer, "old_packet": old_packet, "labels": labels,
            "extended": extended}  # fmt: skip


def test_an_extended_packet_keeps_the_older_records_in_their_order(grown: dict[str, Any]) -> None:
    old, ext = grown["old_packet"]["records"], grown["extended"]["records"]
    by_id = {r["id"]: r for r in ext}
    assert all(by_id[r["id"]] == r for r in old)  # the same split, text and all
    assert [r["id"] for r in ext if r["id"] in {o["id"] for o in old}] == [r["id"] for r in old]
    assert [r["split"] for r in ext].count("tune") == [r["split"] for r in ext].count("test") == 14
    newer = {r["id"] for r in json.loads((grown["newer"] / "public.json").read_text())["records"]}
    older = {r["id"] for r in json.loads((grown["older"] / "public.json").read_text())["records"]}
    assert {r["id"] for r in ext} <= newer and any(r["id"] not in older for r in ext)  # new records added too
    old_sha = __import__("hashlib").sha256((grown["tmp"] / "old-packet.json").read_bytes()).hexdigest()
    assert grown["extended"]["extends"] == {"packet_sha256s": [old_sha],
                                            "hash_sha256": grown["old_packet"]["corpus_sha256"]}  # fmt: skip


def test_the_older_packets_labels_count_in_agree_and_gold(grown: dict[str, Any]) -> None:
    tmp, newer = grown["tmp"], grown["newer"]
    done = run_cli("adjudicate", "agree", tmp / "extended.json", *grown["labels"], "--format", "json",
                   "--resamples", "50")  # fmt: skip
    assert done.returncode == 0, done.stderr
    made = run_cli("adjudicate", "gold", tmp / "extended.json", *grown["labels"], "--policy", "unanimous",
                   "--public", newer / "public.json", "--answers", newer / "answers.json", "--output",
                   tmp / "semantic.json", "--report", tmp / "semantic-report.json", "--resamples", "50",
                   "--allow-weak")  # fmt: skip  (a handful of constructed labels: weak gold)
    assert made.returncode == 0, made.stderr
    semantic = json.loads((tmp / "semantic.json").read_text())
    old_ids = {r["id"] for r in grown["old_packet"]["records"]}
    added = {r["id"] for r in grown["extended"]["records"]} - old_ids
    assert semantic["gold"] and {g["id"] for g in semantic["gold"]} <= old_ids  # the labels hold old records only
    reasons = {(e["id"] in added, e["reason"]) for e in semantic["excluded"]}
    assert {reason for was_added, reason in reasons if was_added} == {"fewer than two labels"}, reasons
    # against the older packet alone the same labels still count, as before
    alone = run_cli("adjudicate", "agree", tmp / "old-packet.json", *grown["labels"], "--resamples", "50")
    assert alone.returncode == 0, alone.stderr


def test_a_where_packet_holds_only_open_issues(grown: dict[str, Any]) -> None:
    public = grown["newer"] / "public.json"
    open_packet = _packet(public, grown["tmp"] / "open.json", 10, "--where", "state = 'OPEN'")
    states = {r["id"]: r["state"] for r in json.loads(public.read_text())["records"]}
    assert open_packet["records"] and {states[r["id"]] for r in open_packet["records"]} == {"OPEN"}
    assert open_packet["where"] == "state = 'OPEN'"
    plain = _packet(public, grown["tmp"] / "plain.json", 10)
    every = _packet(public, grown["tmp"] / "every.json", 10, "--where", "true")
    assert "where" not in plain and "extends" not in plain and every["records"] == plain["records"]
    dated = _packet(public, grown["tmp"] / "dated.json", 5, "--where", "created_at >= TIMESTAMPTZ '2026-08-01'")
    created = {r["id"]: r["created_at"] for r in json.loads(public.read_text())["records"]}
    assert all(created[r["id"]] >= "2026-08-01" for r in dated["records"])


@pytest.mark.parametrize("where", ["true); DROP TABLE splits; SELECT (1", "no_such_column = 1"])
def test_a_where_that_is_no_condition_is_refused(grown: dict[str, Any], where: str) -> None:
    out = grown["tmp"] / "refused.json"
    done = run_cli("adjudicate", "packet", "--public", grown["newer"] / "public.json", "--rubric", RUBRIC,
                   "--records", 5, "--output", out, "--where", where)  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--where" in done.stderr and not out.exists()


def test_a_packet_of_another_corpus_is_refused(grown: dict[str, Any]) -> None:
    out = grown["tmp"] / "refused.json"
    done = run_cli("adjudicate", "packet", "--public", grown["third"] / "public.json", "--rubric", RUBRIC,
                   "--records", 12, "--output", out, "--extend", grown["tmp"] / "old-packet.json")  # fmt: skip
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "another corpus" in done.stderr
    assert not out.exists()
