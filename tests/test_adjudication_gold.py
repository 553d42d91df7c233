"""`s8f-duck adjudicate gold`: the semantic answer bundle. Its gold labels against a
decision written here in Python, the resolver, the digests it binds, its privacy, the leak
checks, the refusals, and `verify --semantic` deriving it again."""

from __future__ import annotations

import hashlib
import json
import stat
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from adjudicated import CHOICES, labelled, labels_file, three
from conftest import S8F_ANSWERS, S8F_ANSWERS_SHA256, S8F_PUBLIC, S8F_PUBLIC_SHA256, S8F_REPORT, needs_s8f, run_cli


def gold(packet: Path, labels: list[Path], folder: Path, *extra: str | Path, policy: str = "majority") -> Any:
    return run_cli("adjudicate", "gold", packet, *labels, "--policy", policy, "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", folder / "semantic.json",
                   "--report", folder / "semantic-report.json", "--resamples", "50", "--allow-weak",
                   *extra)  # fmt: skip  # CHOICES' alpha is below the gates


def expected_gold(packet: Path, policy: str) -> dict[tuple[str, str], str | None]:
    """The gold label of each record and field, decided here from CHOICES."""
    document = json.loads(packet.read_text(encoding="utf-8"))
    decided = {}
    for k, record in enumerate(document["records"]):
        for field in document["rubric"]:
            given = [v for v in (choose(k, field) for choose in CHOICES.values()) if v is not None]
            label, votes = Counter(given).most_common(1)[0]
            ok = len(given) >= 2 and (votes == len(given) if policy == "unanimous" else votes * 2 > len(given))
            decided[(record["id"], field["name"])] = label if ok else None
    return decided


@needs_s8f
@pytest.mark.parametrize("policy", ["majority", "unanimous"])
def test_gold_is_the_policys_label_bound_private_and_verified(packet: Path, tmp_path: Path, policy: str) -> None:
    labels = three(packet, tmp_path)
    result = gold(packet, labels, tmp_path, policy=policy)
    assert result.returncode == 0, result.stderr
    semantic, report_path = tmp_path / "semantic.json", tmp_path / "semantic-report.json"
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    expected = expected_gold(packet, policy)
    got = {(g["id"], g["field"]): g["values"] for g in bundle["gold"]}
    assert got == {key: [v] for key, v in expected.items() if v is not None}
    assert {(e["id"], e["field"]) for e in bundle["excluded"]} == {key for key, v in expected.items() if v is None}
    assert (bundle["corpus_sha256"], bundle["answers_sha256"]) == (S8F_PUBLIC_SHA256, S8F_ANSWERS_SHA256)
    assert bundle["packet_sha256"] == hashlib.sha256(packet.read_bytes()).hexdigest()
    assert stat.S_IMODE(semantic.stat().st_mode) == 0o600  # private, like the answer bundle

    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["semantic_sha256"] == hashlib.sha256(semantic.read_bytes()).hexdigest()
    assert [a["name"] for a in report["adjudicators"]] == ["a", "b", "c"]
    assert all(a["labels_sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()
               for a, p in zip(report["adjudicators"], labels))  # fmt: skip
    assert all(report["leak_checks"].values()) and len(report["leak_checks"]) == 4
    assert sum(c["gold"] for c in report["counts"]) == len(got)
    assert {f["statistic"] for f in report["agreement"]["figures"]} == {"alpha", "kappa", "raw agreement"}
    assert '"issue-' not in report_path.read_text(encoding="utf-8")  # figures and counts: no record named
    for ceiling in bundle["ceilings"]:  # each field's alpha beside its ceiling (test_adjudication_ceilings.py)
        assert ceiling["alpha"] == next(f["value"] for f in report["agreement"]["figures"]
                                        if f["field"] == ceiling["field"] and f["statistic"] == "alpha")  # fmt: skip

    # verify derives both again: the same bytes, whatever order the labels files come in
    verify = ["verify", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--report", S8F_REPORT,
              "--semantic", semantic, "--semantic-report", report_path, "--packet", packet]  # fmt: skip
    done = run_cli(*verify, *[x for p in reversed(labels) for x in ("--labels", p)])
    assert done.returncode == 0, done.stderr
    assert "semantic answer bundle and its report re-derive" in done.stdout
    # ... and finds a bundle that is not the labels' gold
    changed = labels_file(tmp_path / "b.json", packet, "b", labelled(packet, lambda k, f: f["values"][-1]))
    done = run_cli(*verify, *[x for p in [labels[0], changed, labels[2]] for x in ("--labels", p)])
    assert done.returncode == 1 and "semantic.json: does not re-derive" in done.stderr


@needs_s8f
def test_the_resolver_decides_where_the_policy_finds_none(packet: Path, tmp_path: Path) -> None:
    """The records the adjudicators disagree on, as a packet (agree --disagreements), are
    given to a resolver; their labels decide exactly the fields the policy left undecided."""
    labels = three(packet, tmp_path)
    further = tmp_path / "further.json"
    agreed = run_cli("adjudicate", "agree", packet, *labels, "--resamples", "5", "--disagreements", further)
    assert agreed.returncode == 0, agreed.stderr
    resolver = labels_file(tmp_path / "judge.json", further, "judge",
                           labelled(further, lambda k, f: f["values"][-1]), kind="person")  # fmt: skip
    result = gold(packet, labels, tmp_path, "--resolver", resolver, "--resolver-packet", further, policy="unanimous")
    assert result.returncode == 0, result.stderr
    bundle = json.loads((tmp_path / "semantic.json").read_text(encoding="utf-8"))
    expected = expected_gold(packet, "unanimous")
    by_resolver = {(g["id"], g["field"]): g["values"] for g in bundle["gold"] if g["decided_by"] == "resolver"}
    further_ids = {r["id"] for r in json.loads(further.read_text(encoding="utf-8"))["records"]}
    assert by_resolver and all(expected[key] is None and key[0] in further_ids for key in by_resolver)
    rubric = {f["name"]: f["values"] for f in bundle["rubric"]}
    assert all(values == [rubric[field][-1]] for (_, field), values in by_resolver.items())
    report = json.loads((tmp_path / "semantic-report.json").read_text(encoding="utf-8"))
    assert report["resolver"]["name"] == "judge"
    assert sum(c["decided_by_resolver"] for c in report["counts"]) == len(by_resolver)


def packet_variant(packet: Path, folder: Path, change: Any) -> Path:
    document = json.loads(packet.read_text(encoding="utf-8"))
    change(document)
    path = folder / "variant.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@needs_s8f
@pytest.mark.parametrize(
    ("change", "failed"),
    [
        (lambda d: d["records"][3].update(title=d["records"][3]["title"] + "!"), "packet_text_is_the_public_text"),
        (lambda d: d["records"][0].update(gold="bug"), "packet_holds_only_id_split_number_title_body"),
        (lambda d: d["records"][1].update(body=d["records"][1]["body"] + " s8f-duck-semantic-answers/1"),
         "semantic_schema_absent_from_public_and_packet"),
    ],
    ids=["text not the corpus's", "a key beside the text", "the bundle's schema in the packet"],
)
def test_a_failed_leak_check_writes_nothing(packet: Path, tmp_path: Path, change: Any, failed: str) -> None:
    variant = packet_variant(packet, tmp_path, change)
    labels = three(variant, tmp_path)
    result = gold(variant, labels, tmp_path)
    assert result.returncode == 1, result.stderr
    assert "semantic leak checks failed" in result.stderr and failed in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "semantic.json").exists() and not (tmp_path / "semantic-report.json").exists()


@needs_s8f
@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("one adjudicator", "give the labels of at least two adjudicators"),
        ("another corpus's answers", "the answer bundle is of another corpus"),
        ("a packet of another corpus", "the packet is of another corpus"),
        ("the output is the packet", "PACKET"),
        ("a resolver who is an adjudicator", "is one of the adjudicators"),
        ("a resolver packet not from the packet", "not written from"),
        ("a policy not known", "Invalid value for '--policy'"),
    ],
)
def test_bad_input_is_refused_and_nothing_written(packet: Path, tmp_path: Path, case: str, message: str) -> None:
    labels = three(packet, tmp_path)
    semantic, report = tmp_path / "semantic.json", tmp_path / "semantic-report.json"
    args: list[Any] = [packet, *labels]
    extra: list[Any] = []
    policy = "majority"
    if case == "one adjudicator":
        args = [packet, labels[0]]
    elif case == "another corpus's answers":
        other = tmp_path / "answers.json"
        bundle = json.loads(S8F_ANSWERS.read_text(encoding="utf-8"))
        other.write_text(json.dumps({**bundle, "corpus_sha256": "0" * 64}), encoding="utf-8")
        extra = ["--answers", other]
    elif case == "a packet of another corpus":
        variant = packet_variant(packet, tmp_path, lambda d: d.update(corpus_sha256="1" * 64))
        args = [variant, *three(variant, tmp_path)]
    elif case == "the output is the packet":
        semantic = packet
    elif case == "a resolver who is an adjudicator":
        extra = ["--resolver", labels[1]]
    elif case == "a resolver packet not from the packet":
        extra = ["--resolver", labels_file(tmp_path / "judge.json", packet, "judge", []), "--resolver-packet", packet]
    else:
        policy = "plurality"
    before = packet.read_bytes()
    result = run_cli("adjudicate", "gold", *args, "--policy", policy, "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS,
                     "--output", semantic, "--report", report, *extra)  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    if case != "a policy not known":  # typer's own usage message takes a few lines
        assert len(result.stderr.strip().splitlines()) == 1
    assert packet.read_bytes() == before
    assert not (tmp_path / "semantic.json").exists() and not report.exists()
