"""freeze --keep-splits: the S8f dump cut by creation date (its first two thirds, then all)
frozen again keeping the older corpus's splits; the left-out records counted here from the
groups; the refreshed triple verifies; without the option the bytes are the original's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import S8F_PUBLIC_SHA256, S8F_RAW, S8F_SOURCE, needs_s8f, run_cli, write_json

pytestmark = needs_s8f


def _freeze(raw: Path, out: Path, *extra: str | Path, source: str = S8F_SOURCE) -> dict[str, Any]:
    result = run_cli("freeze", raw, "--public", out / "public.json", "--answers", out / "answers.json",
                     "--report", out / "report.json", "--source", source, *extra)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return {name: json.loads((out / f"{name}.json").read_text()) for name in ("public", "answers", "report")}


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The older corpus (the first two thirds by createdAt), the whole dump frozen plainly,
    and frozen keeping the older splits."""
    tmp = tmp_path_factory.mktemp("refresh")
    dump = sorted(json.loads(S8F_RAW.read_text()), key=lambda r: (r["createdAt"], r["number"]))
    older_raw = write_json(tmp / "older-raw.json", dump[: len(dump) * 2 // 3])
    return {
        "tmp": tmp,
        "older": _freeze(older_raw, tmp / "older"),
        "plain": _freeze(S8F_RAW, tmp / "plain"),
        "kept": _freeze(S8F_RAW, tmp / "kept", "--keep-splits", tmp / "older" / "public.json"),
    }


def _splits(artifacts: dict[str, Any]) -> dict[int, str]:
    return {r["number"]: r["split"] for r in artifacts["public"]["records"]}


def test_without_the_option_the_bytes_are_the_original_tools(frozen: dict[str, Any]) -> None:
    from s8f_duck.reading.scan import file_sha256

    assert file_sha256(frozen["tmp"] / "plain" / "public.json") == S8F_PUBLIC_SHA256
    assert "keep_splits" not in frozen["plain"]["report"]
    older, plain = _splits(frozen["older"]), _splits(frozen["plain"])
    assert any(plain[n] != s for n, s in older.items())  # the problem: a plain refreeze moves older records


def test_no_older_record_changes_split(frozen: dict[str, Any]) -> None:
    older, kept = _splits(frozen["older"]), _splits(frozen["kept"])
    assert set(older) <= set(kept)
    assert all(kept[n] == s for n, s in older.items())
    member = frozen["kept"]["report"]["keep_splits"]
    assert member["older_records"] == member["older_records_kept"] == len(older)
    assert member["older_records_missing"] == 0 and member["new_records"] == len(kept) - len(older)


def _left_out_from_groups(frozen: dict[str, Any]) -> list[int]:
    """The rule, computed here over the whole dump's links (the plain freeze's digests and
    references): a new record linked to older records of several splits is left out; so
    is a cluster of new records linked among themselves that reaches several."""
    older = _splits(frozen["older"])
    records = frozen["plain"]["public"]["records"]
    numbers = {r["number"] for r in records}
    links: dict[int, set[int]] = {n: set() for n in numbers}
    for key in ("title_sha256", "body_sha256"):
        first: dict[str, int] = {}
        for r in sorted(records, key=lambda r: r["number"]):
            other = first.setdefault(r[key], r["number"])
            if other != r["number"]:
                links[r["number"]].add(other), links[other].add(r["number"])
    for a in frozen["plain"]["answers"]["answers"]:
        n = int(a["id"].removeprefix("issue-"))
        for m in a["references"]:
            if m in numbers and m != n:
                links[n].add(m), links[m].add(n)
    new = numbers - set(older)
    direct = {n: {older[m] for m in links[n] if m in older} for n in new}
    bridging = {n for n in new if len(direct[n]) > 1}
    rest, left_out, seen = new - bridging, set(bridging), set()
    for start in sorted(rest):
        if start in seen:
            continue
        cluster, stack = set(), [start]
        while stack:
            n = stack.pop()
            if n not in cluster:
                cluster.add(n)
                stack += [m for m in links[n] if m in rest and m not in cluster]
        seen |= cluster
        if len(set().union(*(direct[n] for n in cluster))) > 1:
            left_out |= cluster
    return sorted(left_out)


def test_left_out_records_are_those_the_groups_say(frozen: dict[str, Any]) -> None:
    expected = _left_out_from_groups(frozen)
    member = frozen["kept"]["report"]["keep_splits"]
    assert expected and member["left_out_numbers"] == expected and member["new_records_left_out"] == len(expected)
    assert not set(expected) & set(_splits(frozen["kept"]))
    assert len(_splits(frozen["kept"])) + len(expected) == len(_splits(frozen["plain"]))
    from s8f_duck.reading.scan import file_sha256

    assert member["older_corpus_sha256"] == file_sha256(frozen["tmp"] / "older" / "public.json")


def test_the_refreshed_triple_verifies_with_keep_splits(frozen: dict[str, Any]) -> None:
    kept, older = frozen["tmp"] / "kept", frozen["tmp"] / "older" / "public.json"
    args = ["verify", "--public", kept / "public.json", "--answers", kept / "answers.json", "--report",
            kept / "report.json"]  # fmt: skip
    result = run_cli(*args, "--keep-splits", older)
    assert result.returncode == 0, result.stderr
    without = run_cli(*args)
    assert without.returncode == 1 and "report.keep_splits" in without.stderr
    another = run_cli(*args, "--keep-splits", frozen["tmp"] / "plain" / "public.json")
    assert another.returncode == 1 and ".split: file has" in another.stderr


def test_a_keep_splits_file_that_is_no_public_corpus_is_refused(frozen: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    for wrong in (frozen["tmp"] / "older" / "answers.json", write_json(tmp_path / "x.json", {"records": 3})):
        result = run_cli("freeze", S8F_RAW, "--public", out / "p.json", "--answers", out / "a.json", "--report",
                         out / "r.json", "--source", "s", "--keep-splits", wrong)  # fmt: skip
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--keep-splits" in result.stderr
        assert not out.exists()
