"""The ceiling of a semantic bundle, measured on the records graded: each adjudicator's
labels graded, as a candidate's are, against the gold the same policy makes from the
others (leave one out), checked against a hand computation with scikit-learn's accuracy;
and the gates that refuse a weak gold unless --allow-weak."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from adjudicated import labels_file, quote_of
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_PUBLIC_SHA256, needs_s8f, run_cli

from s8f_duck.reading.schemas import SUBMISSION_SCHEMA
from sklearn.metrics import accuracy_score


def noisy(packet: Path, seed: int, keep: float = 0.8, missing: float = 0.1) -> dict[str, list[dict[str, Any]]]:
    """Three adjudicators' labels: each gives a record's 'true' label with probability
    `keep`, else one at random, and leaves a share `missing` unlabelled."""
    document = json.loads(packet.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    truth = {(r["id"], f["name"]): rng.choice(f["values"]) for r in document["records"] for f in document["rubric"]}
    everyone: dict[str, list[dict[str, Any]]] = {}
    for name in ("ann", "bob", "cy"):
        entries = []
        for record in document["records"]:
            for field in document["rubric"]:
                if rng.random() < missing:
                    continue
                value = truth[(record["id"], field["name"])] if rng.random() < keep else rng.choice(field["values"])
                entries.append({"id": record["id"], "field": field["name"], "values": [value],
                                "evidence": [quote_of(record)] if field["evidence"] else []})  # fmt: skip
        everyone[name] = entries
    return everyone


def decide(given: list[str], policy: str, least: int) -> str | None:
    if len(given) < least:
        return None
    label, votes = Counter(given).most_common(1)[0]
    if policy == "unanimous":
        return label if votes == len(given) else None
    return label if votes * 2 > len(given) else None


def expected_ceilings(packet: Path, everyone: dict[str, list[dict[str, Any]]], kinds: dict[str, str],
                      policy: str) -> dict[tuple[str, str], dict[str, Any]]:  # fmt: skip
    """Per (field, split): each adjudicator's leave-one-out accuracy by scikit-learn, the
    ceiling (best person, else mean) and the coverage."""
    document = json.loads(packet.read_text(encoding="utf-8"))
    given = {name: {(e["id"], e["field"]): e["values"][0] for e in entries} for name, entries in everyone.items()}
    out = {}
    for field in document["rubric"]:
        for split in ("tune", "test"):
            records = [r["id"] for r in document["records"] if r["split"] == split]
            kept = [i for i in records
                    if decide([g[(i, field["name"])] for g in given.values() if (i, field["name"]) in g], policy, 2)]
            accuracies = {}
            for name in given:
                truth, said = [], []
                for i in kept:
                    others = [g[(i, field["name"])] for n, g in given.items() if n != name and (i, field["name"]) in g]
                    gold = decide(others, policy, 1)
                    if gold is not None and (i, field["name"]) in given[name]:
                        truth.append(gold)
                        said.append(given[name][(i, field["name"])])
                if truth:
                    accuracies[name] = accuracy_score(truth, said)
            people = {n: a for n, a in accuracies.items() if kinds[n] == "person"}
            ceiling = max(people.values()) if people else sum(accuracies.values()) / len(accuracies)
            out[(field["name"], split)] = {"adjudicators": accuracies, "ceiling": ceiling,
                                           "coverage": len(kept) / len(records), "gold_records": len(kept)}  # fmt: skip
    return out


def make(packet: Path, folder: Path, everyone: dict[str, list[dict[str, Any]]], kinds: dict[str, str], policy: str,
         *extra: str) -> Any:  # fmt: skip
    paths = [labels_file(folder / f"{n}.json", packet, n, entries, kind=kinds[n]) for n, entries in everyone.items()]
    return run_cli("adjudicate", "gold", packet, *paths, "--policy", policy, "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", folder / "semantic.json",
                   "--report", folder / "semantic-report.json", "--resamples", "50", *extra)  # fmt: skip


@needs_s8f
@pytest.mark.parametrize("policy", ["majority", "unanimous"])
@pytest.mark.parametrize("people", [(), ("bob",)])
def test_leave_one_out_ceilings_are_scikit_learn_s_accuracy(packet: Path, tmp_path: Path, policy: str,
                                                           people: tuple[str, ...]) -> None:  # fmt: skip
    everyone = noisy(packet, seed=7)
    kinds = {n: "person" if n in people else "model" for n in everyone}
    done = make(packet, tmp_path, everyone, kinds, policy, "--allow-weak")
    assert done.returncode == 0, done.stderr
    bundle = json.loads((tmp_path / "semantic.json").read_text(encoding="utf-8"))
    expected = expected_ceilings(packet, everyone, kinds, policy)
    assert len(bundle["ceilings"]) == len(expected)
    for c in bundle["ceilings"]:
        want = expected[(c["field"], c["split"])]
        assert c["ceiling"] == pytest.approx(want["ceiling"], abs=1e-6)
        assert c["ceiling_low"] <= c["ceiling"] <= c["ceiling_high"]
        assert (c["gold_records"], c["coverage"]) == (want["gold_records"], pytest.approx(want["coverage"], abs=1e-6))
        assert c["ceiling_basis"] == ("best person: bob" if people else "mean of 3 adjudicators")
        got = {a["adjudicator"]: a["accuracy"] for a in bundle["adjudicator_ceilings"]
               if (a["field"], a["split"]) == (c["field"], c["split"])}  # fmt: skip
        assert got == pytest.approx(want["adjudicators"], abs=1e-6)
        if policy == "unanimous":  # on the records kept, everyone agreed: the ceiling is 1, coverage shows the rest
            assert c["ceiling"] == 1.0 and c["coverage"] < 1.0
    report = json.loads((tmp_path / "semantic-report.json").read_text(encoding="utf-8"))
    assert report["ceilings"] == bundle["ceilings"]
    assert f"ceiling {bundle['ceilings'][0]['field']} on tune: " in done.stdout


@needs_s8f
def test_a_random_adjudicator_s_gold_is_refused_at_the_gates_and_written_with_allow_weak(
    packet: Path, tmp_path: Path
) -> None:
    document = json.loads(packet.read_text(encoding="utf-8"))
    rng = random.Random(3)
    everyone = {
        "model": [{"id": r["id"], "field": f["name"], "values": [f["values"][0]],
                   "evidence": [quote_of(r)] if f["evidence"] else []}
                  for r in document["records"] for f in document["rubric"]],
        "coin": [{"id": r["id"], "field": f["name"], "values": [rng.choice(f["values"])],
                  "evidence": [quote_of(r)] if f["evidence"] else []}
                 for r in document["records"] for f in document["rubric"]],
    }  # fmt: skip
    kinds = dict.fromkeys(everyone, "model")
    refused = make(packet, tmp_path, everyone, kinds, "majority")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    first = document["rubric"][0]["name"]
    assert f"weak gold: field '{first}': alpha " in refused.stderr and "< 0.667" in refused.stderr
    assert "gold records < 30" in refused.stderr  # 40 records a split, the coin agreeing on few
    assert not (tmp_path / "semantic.json").exists() and not (tmp_path / "semantic-report.json").exists()

    written = make(packet, tmp_path, everyone, kinds, "majority", "--allow-weak")
    assert written.returncode == 0, written.stderr
    assert "WEAK GOLD (--allow-weak)" in written.stderr
    bundle = json.loads((tmp_path / "semantic.json").read_text(encoding="utf-8"))
    figures = {(w["field"], w["split"], w["figure"]) for w in bundle["weaknesses"]}
    assert (first, None, "alpha") in figures and (first, "test", "gold records") in figures
    assert bundle["gates"] == {"min_alpha": 0.667, "min_records": 30}
    # the gates are options: lowered, the same labels pass
    (tmp_path / "lowered").mkdir()
    lowered = make(packet, tmp_path / "lowered", everyone, kinds, "majority", "--min-alpha", "-1", "--min-records", "0")
    assert lowered.returncode == 0 and "WEAK" not in lowered.stderr, lowered.stderr


@needs_s8f
@pytest.mark.parametrize("policy", ["unanimous", "majority"])
def test_a_copy_of_an_adjudicator_is_marked_only_above_the_ceiling_and_weak_gold_is_shown(
    packet: Path, tmp_path: Path, policy: str
) -> None:
    everyone = noisy(packet, seed=11, missing=0.0)  # the copy answers every record, as a candidate must
    done = make(packet, tmp_path, everyone, dict.fromkeys(everyone, "model"), policy, "--allow-weak")
    assert done.returncode == 0, done.stderr
    semantic = tmp_path / "semantic.json"
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    copy = tmp_path / "copy.json"
    copy.write_text(json.dumps({"schema": SUBMISSION_SCHEMA, "corpus_sha256": S8F_PUBLIC_SHA256, "answers": [],
                                "semantic": [{k: e[k] for k in ("id", "field", "values")} for e in everyone["ann"]]}))
    graded = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", copy, "--semantic", semantic,
                     "--format", "json")  # fmt: skip
    fields = json.loads(graded.stdout)["semantic"]["fields"]
    for f in fields:
        ceiling = next(c for c in bundle["ceilings"] if (c["field"], c["split"]) == (f["field"], "test"))
        assert (f["ceiling"], f["ceiling_low"], f["ceiling_high"]) == (
            ceiling["ceiling"], ceiling["ceiling_low"], ceiling["ceiling_high"])
        assert f["above_ceiling"] == (f["accuracy"] > f["ceiling_high"])
        if policy == "unanimous":  # the copy agrees with every kept record, as each adjudicator does: within
            assert f["accuracy"] == f["ceiling"] == 1.0 and not f["above_ceiling"]
        assert f["gold_coverage"] == ceiling["coverage"]
    if policy == "majority":  # the copy's own vote is in the gold: above what it scores against the others
        assert any(f["above_ceiling"] for f in fields)
    text = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", copy, "--semantic", semantic).stdout
    weak = [f for f in fields if f["weak"]]
    assert weak and all(f"WEAK GOLD: {f['weak']}" in text for f in weak)
    assert ("ABOVE THE CEILING" in text) == (policy == "majority")


@needs_s8f
def test_models_are_checked_against_people_with_scikit_learn_s_kappa(packet: Path, tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    everyone = {**noisy(packet, seed=5), **{f"m{k}": v for k, v in noisy(packet, seed=9, keep=0.5).items()}}
    kinds = {n: "person" if n in ("ann", "bob") else "model" for n in everyone}
    paths = [labels_file(tmp_path / f"{n}.json", packet, n, entries, kind=kinds[n]) for n, entries in everyone.items()]
    done = run_cli("adjudicate", "agree", packet, *paths, "--format", "json", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    given = {n: {(e["id"], e["field"]): e["values"][0] for e in entries} for n, entries in everyone.items()}

    def kappa(a: str, b: str, field: str) -> float:
        both = sorted(k for k in given[a] if k in given[b] and k[1] == field)
        return cohen_kappa_score([given[a][k] for k in both], [given[b][k] for k in both])

    models = sorted(n for n in everyone if kinds[n] == "model")
    fields = [f["name"] for f in json.loads(packet.read_text(encoding="utf-8"))["rubric"]]
    assert len(document["judges"]) == len(models) * len(fields)
    for j in document["judges"]:
        pairs = [kappa(j["model"], person, j["field"]) for person in ("ann", "bob")]
        pair_rows = {f["adjudicators"]: f["value"] for f in document["figures"]
                     if f["field"] == j["field"] and f["statistic"] == "kappa"}  # fmt: skip
        for person, value in zip(("ann", "bob"), pairs):
            assert pair_rows[" ~ ".join(sorted((j["model"], person)))] == pytest.approx(value, abs=1e-6)
        assert j["people"] == 2 and j["kappa_with_people"] == pytest.approx(sum(pairs) / 2, abs=1e-6)
        assert j["people_kappa"] == pytest.approx(kappa("ann", "bob", j["field"]), abs=1e-6)
        assert j["as_well_as_people"] == (j["kappa_with_people"] >= j["people_kappa"])
        assert j["kappa_with_people_low"] <= j["kappa_with_people"] <= j["kappa_with_people_high"]
    text = run_cli("adjudicate", "agree", packet, *paths, "--resamples", "50").stdout
    assert "models against people" in text and "less well than people" in text
    made = make(packet, tmp_path, everyone, kinds, "majority", "--allow-weak")
    assert made.returncode == 0, made.stderr
    report = json.loads((tmp_path / "semantic-report.json").read_text(encoding="utf-8"))
    assert report["judges"] == document["judges"]  # the same resamples and seed
    assert "models against people:" in made.stdout


@needs_s8f
def test_a_field_one_adjudicator_labelled_has_no_ceiling_but_a_note(packet: Path, tmp_path: Path) -> None:
    everyone = noisy(packet, seed=2, missing=0.0)
    first = json.loads(packet.read_text(encoding="utf-8"))["rubric"][0]["name"]
    everyone = {"ann": everyone["ann"], "bob": [e for e in everyone["bob"] if e["field"] != first]}
    done = make(packet, tmp_path, everyone, dict.fromkeys(everyone, "person"), "majority", "--allow-weak")
    assert done.returncode == 0, done.stderr
    bundle = json.loads((tmp_path / "semantic.json").read_text(encoding="utf-8"))
    for c in bundle["ceilings"]:
        if c["field"] == first:  # only ann labelled it: no gold, nobody to grade her against
            assert c["ceiling"] is None and c["note"].startswith("cannot be measured") and c["gold_records"] == 0
            assert f"ceiling {first} on {c['split']}: cannot be measured" in done.stdout
        else:  # two people: each graded against the other on the records both agree on (majority of two)
            assert c["ceiling"] == 1.0 and c["note"] is None and c["ceiling_basis"] == "best person: ann"
