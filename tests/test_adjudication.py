"""`s8f-duck adjudicate packet` and `agree`: the rubric, the packet, labels files checked
against them, and agreement figures checked against independent implementations
(scikit-learn's Cohen's kappa, the krippendorff package's alpha) on seeded random label sets
with missing labels and on Krippendorff's own worked example."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from adjudicated import RUBRIC, labelled, labels_file
from conftest import S8F_PUBLIC, needs_s8f, run_cli

from s8f_duck.adjudication.agreement import figures
from s8f_duck.adjudication.labels import Labels
from s8f_duck.adjudication.packet import Packet
from s8f_duck.adjudication.rubric import Field, Rubric


@needs_s8f
def test_the_packet_is_chosen_without_a_person_and_holds_public_text_only(packet: Path, tmp_path: Path) -> None:
    document = json.loads(packet.read_text(encoding="utf-8"))
    public = json.loads(S8F_PUBLIC.read_text(encoding="utf-8"))
    assert [r["split"] for r in document["records"]] == ["tune"] * 40 + ["test"] * 40
    assert all(set(r) == {"id", "split", "number", "title", "body"} for r in document["records"])
    by_id = {r["id"]: r for r in public["records"]}
    assert all(by_id[r["id"]]["title"] == r["title"] and by_id[r["id"]]["split"] == r["split"]
               for r in document["records"])  # fmt: skip
    assert [f["name"] for f in document["rubric"]] == ["kind", "actionable", "needs_repository"]
    again = tmp_path / "again.json"
    assert run_cli("adjudicate", "packet", "--public", S8F_PUBLIC, "--rubric", RUBRIC, "--records", "40",
                   "--output", again).returncode == 0  # fmt: skip
    assert again.read_bytes() == packet.read_bytes()  # the same choice, the same bytes


BAD_RUBRICS = {
    "not TOML": ("[[field]\nname = 'x'\n", "not TOML"),
    "no field": ("title = 'x'\n", "unknown table or key 'title'"),
    "bad name": ("[[field]]\nname = 'Kind'\nquestion = 'q'\nvalues = ['a']\n", "field 1 (line 1): name must be"),
    "no values": ("[[field]]\nname = 'kind'\nquestion = 'q'\nvalues = []\n", "field 1 'kind' (line 1): values must be"),
    "repeated value": ("[[field]]\nname = 'kind'\nquestion = 'q'\nvalues = ['a', 'a']\n", "values repeat 'a'"),
    "unknown key": ("[[field]]\nname = 'kind'\nquestion = 'q'\nvalues = ['a']\nweight = 2\n", "unknown key 'weight'"),
    "multi not a flag": ("[[field]]\nname = 'kind'\nquestion = 'q'\nvalues = ['a']\nmulti = 'yes'\n",
                         "multi must be true or false"),
    "same name twice": ("[[field]]\nname = 'kind'\nquestion = 'q'\nvalues = ['a']\n\n"
                        "[[field]]\nname = 'kind'\nquestion = 'q'\nvalues = ['b']\n", "field 2 'kind' (line 6)"),
}  # fmt: skip


@needs_s8f
@pytest.mark.parametrize("case", list(BAD_RUBRICS))
def test_a_bad_rubric_is_refused_naming_the_field_and_line(tmp_path: Path, case: str) -> None:
    text, message = BAD_RUBRICS[case]
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(text, encoding="utf-8")
    result = run_cli("adjudicate", "packet", "--public", S8F_PUBLIC, "--rubric", rubric, "--records", "5",
                     "--output", tmp_path / "p.json")  # fmt: skip
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "p.json").exists()


@needs_s8f
def test_agree_prints_every_figure_with_an_interval_and_the_same_seed_gives_the_same_bytes(
    packet: Path, tmp_path: Path
) -> None:
    first = labels_file(tmp_path / "a.json", packet, "model-a", labelled(packet, lambda k, f: f["values"][k % 2]))
    second = labels_file(tmp_path / "b.json", packet, "model-b",
                         labelled(packet, lambda k, f: f["values"][(k // 3) % 2] if k % 5 else None))  # fmt: skip
    runs = [run_cli("adjudicate", "agree", packet, first, second, "--format", "json", "--resamples", "200")
            for _ in range(2)]  # fmt: skip
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    document = json.loads(runs[0].stdout)
    assert [a["labelled"]["kind"] for a in document["adjudicators"]] == [80, 64]
    stats = {(f["field"], f["statistic"]) for f in document["figures"]}
    assert stats == {(field, s) for field in ("kind", "actionable", "needs_repository")
                     for s in ("alpha", "kappa", "raw agreement")}  # fmt: skip
    for figure in document["figures"]:
        if figure["value"] is not None:
            assert figure["low"] <= figure["value"] <= figure["high"], figure
    other = run_cli("adjudicate", "agree", packet, first, second, "--format", "json", "--resamples", "200",
                    "--seed", "7")  # fmt: skip
    assert json.loads(other.stdout)["figures"] != document["figures"]
    table = run_cli("adjudicate", "agree", packet, first, second, "--resamples", "50")
    assert table.returncode == 0 and "kappa" in table.stdout and "model-b" in table.stdout


BAD_LABELS = {
    "another packet": (lambda e: e, {"packet_sha256": "0" * 64}, "for another packet"),
    "an unknown record": (lambda e: [{**e[0], "id": "issue-999999"}], {}, "record 'issue-999999' is not in the packet"),
    "an unknown field": (lambda e: [{**e[0], "field": "mood"}], {}, "the rubric has no such field"),
    "a label outside the rubric": (lambda e: [{**e[0], "values": ["urgent"]}], {}, "'urgent' is not one of"),
    "two labels for one": (lambda e: [{**e[0], "values": e[0]["values"] + ["question"]}], {}, "one label"),
    "a repeat": (lambda e: [e[0], e[0]], {}, "labelled twice"),
    "no evidence": (lambda e: [{**e[0], "evidence": []}], {}, "asks for evidence"),
    "invented evidence": (lambda e: [{**e[0], "evidence": ["words nobody wrote here"]}], {}, "is not in the record"),
}  # fmt: skip


@needs_s8f
@pytest.mark.parametrize("case", list(BAD_LABELS))
def test_a_bad_labels_file_is_refused_naming_the_file_record_and_field(packet: Path, tmp_path: Path, case: str) -> None:
    change, top, message = BAD_LABELS[case]
    entries = change(labelled(packet, lambda k, f: "bug" if f["name"] == "kind" else None))
    path = labels_file(tmp_path / "bad.json", packet, "model-a", entries)
    if top:
        path.write_text(json.dumps({**json.loads(path.read_text()), **top}))
    good = labels_file(tmp_path / "good.json", packet, "model-b", labelled(packet, lambda k, f: f["values"][0]))
    result = run_cli("adjudicate", "agree", packet, good, path)
    assert result.returncode == 2 and message in result.stderr and str(path) in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@needs_s8f
def test_labels_made_in_a_spreadsheet_come_in_as_csv(packet: Path, tmp_path: Path) -> None:
    document = json.loads(packet.read_text(encoding="utf-8"))
    rows = ["id,field,value,evidence"]
    for record in document["records"][:5]:
        rows.append(f'{record["id"]},actionable,yes,')
    (tmp_path / "alice.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    model = labels_file(tmp_path / "m.json", packet, "model-a", labelled(packet, lambda k, f: f["values"][0]))
    result = run_cli("adjudicate", "agree", packet, tmp_path / "alice.csv", model, "--format", "json",
                     "--resamples", "20")  # fmt: skip
    assert result.returncode == 0, result.stderr
    alice = json.loads(result.stdout)["adjudicators"][0]
    assert (alice["name"], alice["kind"], alice["labelled"]["actionable"]) == ("alice", "person", 5)


# --- the figures against independent implementations ---

def synthetic(coders: list[list[str | None]]) -> tuple[Packet, list[Labels]]:
    """A packet of as many records as each coder's list, one field, and each coder's labels
    (None: not labelled)."""
    values = sorted({v for coder in coders for v in coder if v is not None})
    rubric = Rubric((Field("f", "q", tuple(values)),), "")
    records = [{"id": f"r{k}", "split": "test", "number": k, "title": "t", "body": "b"} for k in range(len(coders[0]))]
    packet = Packet(Path("p.json"), "", "", rubric, records)
    labels = [Labels(Path(f"{n}.json"), f"c{n}", "model",
                     {(f"r{k}", "f"): (v,) for k, v in enumerate(coder) if v is not None})
              for n, coder in enumerate(coders)]  # fmt: skip
    return packet, labels


def points(coders: list[list[str | None]]) -> dict[tuple[str, str], float | None]:
    packet, labels = synthetic(coders)
    return {(f["statistic"], f["adjudicators"]): f["value"] for f in figures(packet, labels, 1, 0)}


def test_alpha_on_krippendorffs_worked_example() -> None:
    """Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": four observers,
    twelve units, nominal alpha 0.743."""
    rows = ["1 2 3 3 2 1 4 1 2 . . .", "1 2 3 3 2 2 4 1 2 5 . 3", ". 3 3 3 2 3 4 2 2 5 1 .",
            "1 2 3 3 2 4 4 1 2 5 1 ."]  # fmt: skip
    coders = [[None if v == "." else v for v in row.split()] for row in rows]
    assert round(points(coders)[("alpha", "all")], 3) == 0.743


def test_kappa_and_alpha_equal_scikit_learn_and_krippendorff_on_random_label_sets() -> None:
    import krippendorff
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(20261204)
    checked = 0
    for _ in range(200):
        coders_n, units, labels = rng.randint(2, 4), rng.randint(5, 40), ["a", "b", "c", "d"][: rng.randint(2, 4)]
        missing = rng.choice([0.0, 0.1, 0.3])
        coders = [[None if rng.random() < missing else rng.choice(labels) for _ in range(units)]
                  for _ in range(coders_n)]  # fmt: skip
        got = points(coders)
        for i in range(coders_n):
            for j in range(i + 1, coders_n):
                both = [(a, b) for a, b in zip(coders[i], coders[j]) if a is not None and b is not None]
                if len({v for pair in both for v in pair}) < 2 or len({a for a, _ in both}) * len({b for _, b in both}) < 2:
                    continue  # kappa undefined (one label throughout on both sides)
                expected = cohen_kappa_score([a for a, _ in both], [b for _, b in both])
                assert got[("kappa", f"c{i} ~ c{j}")] == pytest.approx(expected, abs=1e-6)
                checked += 1
        codes = {v: n for n, v in enumerate(labels)}
        matrix = np.array([[np.nan if v is None else codes[v] for v in coder] for coder in coders], dtype=float)
        pairable = sum(1 for k in range(units) if sum(c[k] is not None for c in coders) >= 2)
        if pairable and len({coders[c][k] for c in range(coders_n) for k in range(units)} - {None}) > 1:
            try:
                expected_alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
            except ValueError:
                continue
            if got[("alpha", "all")] is not None and not np.isnan(expected_alpha):
                assert got[("alpha", "all")] == pytest.approx(expected_alpha, abs=1e-6)
                checked += 1
    assert checked > 300


def masi(a: frozenset[str], b: frozenset[str]) -> float:
    """MASI distance (Passonneau 2006), written here from its definition."""
    monotonicity = 1.0 if a == b else 2 / 3 if a <= b or b <= a else 1 / 3 if a & b else 0.0
    return 1 - len(a & b) / len(a | b) * monotonicity


def set_alpha(coders: list[list[frozenset[str] | None]]) -> float | None:
    """Alpha of a set-valued field as agreement.sql computes it."""
    values = sorted({v for coder in coders for s in coder if s for v in s})
    rubric = Rubric((Field("f", "q", tuple(values), multi=True),), "")
    records = [{"id": f"r{k}", "split": "test", "number": k, "title": "t", "body": "b"} for k in range(len(coders[0]))]
    labels = [Labels(Path(f"{n}.json"), f"c{n}", "model",
                     {(f"r{k}", "f"): tuple(sorted(s)) for k, s in enumerate(coder) if s is not None})
              for n, coder in enumerate(coders)]  # fmt: skip
    got = figures(Packet(Path("p.json"), "", "", rubric, records), labels, 1, 0)
    return next(f["value"] for f in got if f["statistic"] == "alpha")


def test_alpha_of_a_set_valued_field_takes_masi() -> None:
    """Two coders, two records: {a} ~ {a, b} (MASI 1 - 1/2 * 2/3) and {c} ~ {c}; by hand,
    over the labels {a}, {a, b}, {c} x 2: D_o = 2 * (2/3) / 4 = 1/3 and
    D_e = (2 * (2/3) + 2 * 2 * 1 + 2 * 2 * 1) / (4 * 3) = 7/9, so alpha = 1 - 3/7 = 4/7
    (nominal, the two sets unlike: 1 - 2/4 / (10/12) = 0.4)."""
    a, ab, c = frozenset("a"), frozenset("ab"), frozenset("c")
    assert masi(a, ab) == pytest.approx(2 / 3)
    assert set_alpha([[a, c], [ab, c]]) == pytest.approx(4 / 7, abs=1e-6)


def test_set_alpha_equals_krippendorff_with_masi_on_random_label_sets() -> None:
    """The krippendorff package's alpha, given MASI as its distance, on seeded random sets."""
    import krippendorff
    import numpy as np

    rng = random.Random(4122026)
    checked = 0
    for _ in range(100):
        coders_n, units = rng.randint(2, 4), rng.randint(4, 25)
        pool = ["a", "b", "c", "d"][: rng.randint(2, 4)]
        coders = [[None if rng.random() < 0.2 else frozenset(rng.sample(pool, rng.randint(1, len(pool))))
                   for _ in range(units)] for _ in range(coders_n)]  # fmt: skip
        domain = sorted({s for coder in coders for s in coder if s is not None}, key=sorted)
        if len(domain) < 2:
            continue
        codes = {s: n for n, s in enumerate(domain)}
        distances = np.array([[masi(x, y) for y in domain] for x in domain])
        matrix = np.array([[np.nan if s is None else codes[s] for s in coder] for coder in coders], dtype=float)
        try:
            expected = krippendorff.alpha(reliability_data=matrix, value_domain=list(range(len(domain))),
                                          level_of_measurement=lambda v1, v2, i1, i2, n_v, dtype: distances[i1, i2])
        except ValueError:
            continue  # no record with two labels
        got = set_alpha(coders)
        if got is None or np.isnan(expected):
            continue
        assert got == pytest.approx(expected, abs=1e-6)
        checked += 1
    assert checked > 60


@needs_s8f
def test_confusion_and_the_records_they_disagree_on_as_a_packet(packet: Path, tmp_path: Path) -> None:
    """Each pair's confusion counts the records both labelled; the records with differing
    labels become a packet of their own, which labels can be given for like any other."""
    first = labels_file(tmp_path / "a.json", packet, "model-a",
                        labelled(packet, lambda k, f: "yes" if f["name"] == "actionable" else None))  # fmt: skip
    second = labels_file(tmp_path / "b.json", packet, "model-b",
                         labelled(packet, lambda k, f: ("no" if k < 7 else "yes") if f["name"] == "actionable" else None))
    further = tmp_path / "further.json"
    result = run_cli("adjudicate", "agree", packet, first, second, "--format", "json", "--resamples", "20",
                     "--disagreements", further)  # fmt: skip
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    confusion = {(c["label_a"], c["label_b"]): c["records"] for c in document["confusion"]}
    assert confusion == {("yes", "no"): 7, ("yes", "yes"): 73}
    ids = [r["id"] for r in json.loads(packet.read_text())["records"][:7]]
    assert [d["id"] for d in document["disagreements"]] == ids
    subset = json.loads(further.read_text())
    assert [r["id"] for r in subset["records"]] == ids
    assert subset["from_packet_sha256"] == document["packet_sha256"]
    third = labels_file(tmp_path / "c.json", further, "person-c",
                        labelled(further, lambda k, f: "yes" if f["name"] == "actionable" else None), kind="person")
    fourth = labels_file(tmp_path / "d.json", further, "person-d",
                         labelled(further, lambda k, f: "yes" if f["name"] == "actionable" else None), kind="person")
    assert run_cli("adjudicate", "agree", further, third, fourth, "--resamples", "5").returncode == 0
