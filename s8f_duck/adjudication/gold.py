"""`s8f-duck adjudicate gold`: the semantic answer bundle (SEMANTIC.json) and its report.

Per packet record and rubric field the gold label the policy finds among the adjudicators'
labels (or the resolver's), else excluded and counted (sql/adjudication/gold_labels.sql,
gold_counts.sql). The bundle is bound to the corpus digest and to the S8f answer bundle's
digest and written private (0600) with its report, all at once and only when every leak
check holds (semantic_leak_checks.sql). `verify_semantic` derives both again from the same
inputs and requires the same bytes."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from s8f_duck.adjudication.agreement import label_tables, probe_tables
from s8f_duck.adjudication.labels import Labels, read_adjudicators, read_labels
from s8f_duck.adjudication.packet import Packet, read_packet
from s8f_duck.pipeline.steps import GOLD_STEPS, SEMANTIC_LEAK_CHECK_STEPS, connect, create_table, rows, run_steps
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import load_public, read_json_file
from s8f_duck.reading.scan import file_contains, file_sha256
from s8f_duck.reading.schemas import ANSWERS_SCHEMA, SEMANTIC_SCHEMA
from s8f_duck.safety import replacing
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.errors import UnusableInput, Verdict
from s8f_duck.safety.printable import printable
from s8f_duck.safety.progress import Progress
from s8f_duck.safety.writers import write_text

SEMANTIC_REPORT_SCHEMA = "s8f-duck-semantic-report/1"
POLICIES = ("unanimous", "majority")
PACKET_KEYS = {"schema", "corpus_sha256", "rubric_sha256", "rubric", "records", "from_packet_sha256",
               "extends", "where"}  # (extends, where: packet --extend, --where)
RECORD_KEYS = {"id", "split", "number", "title", "body"}


MIN_ALPHA = 0.667  # Krippendorff's floor for tentative conclusions
MIN_RECORDS = 30


class WeakGold(Verdict):
    def __init__(self, weaknesses: list[dict[str, Any]]) -> None:
        super().__init__(f"weak gold: {describe_weaknesses(weaknesses)}; nothing written "
                         "(--allow-weak writes it with the weakness recorded)")  # fmt: skip
        self.weaknesses = weaknesses


def describe_weaknesses(weaknesses: list[dict[str, Any]]) -> str:
    """The gates' rows in words: `field 'kind': alpha 0.090 < 0.667`."""
    said = []
    for w in weaknesses:
        where = f"field {w['field']!r}" + (f" on {w['split']}" if w["split"] else "")
        if w["figure"] == "alpha":
            value = "undefined" if w["value"] is None else f"{w['value']:.3f}"
            said.append(f"{where}: alpha {value} < {w['minimum']:.3f}")
        else:
            said.append(f"{where}: {int(w['value'])} gold records < {int(w['minimum'])}")
    return "; ".join(said)


class SemanticLeakCheckFailed(Verdict):
    def __init__(self, failed: list[str]) -> None:
        super().__init__(f"semantic leak checks failed: {', '.join(failed)}; nothing written")
        self.failed = failed


@dataclass(frozen=True)
class GoldInputs:
    """Everything the semantic bundle is derived from."""

    public: Path
    packet: Packet
    everyone: list[Labels]
    resolver: Labels | None
    answers_sha256: str
    policy: str
    resamples: int
    seed: int
    min_alpha: float = MIN_ALPHA
    min_records: int = MIN_RECORDS


def read_inputs(
    public: Path, packet_path: Path, labels_paths: Sequence[Path], policy: str, resolver_path: Path | None,
    resolver_packet_path: Path | None, answers: Path, resamples: int, seed: int, min_alpha: float = MIN_ALPHA,
    min_records: int = MIN_RECORDS,
) -> GoldInputs:  # fmt: skip
    """The inputs, checked to belong together; UnusableInput names what does not."""
    if policy not in POLICIES:
        raise UnusableInput(f"--policy {policy!r}: give {' or '.join(POLICIES)}")
    packet = read_packet(packet_path)
    corpus_sha256 = file_sha256(public)
    if packet.corpus_sha256 != corpus_sha256:
        raise UnusableInput(f"{packet_path}: the packet is of another corpus than {public} "
                            f"(corpus_sha256 {packet.corpus_sha256!r}, the corpus's {corpus_sha256})")  # fmt: skip
    bundle = read_json_file(answers)
    if not isinstance(bundle, dict) or bundle.get("schema") != ANSWERS_SCHEMA:
        raise UnusableInput(f"{answers}: not an answer bundle: expected schema {ANSWERS_SCHEMA!r}")
    if bundle.get("corpus_sha256") != corpus_sha256:
        raise UnusableInput(f"{answers}: the answer bundle is of another corpus than {public} "
                            f"(corpus_sha256 {bundle.get('corpus_sha256')!r}, the corpus's {corpus_sha256})")  # fmt: skip
    # by name: the bundle and report do not depend on the order the files are given in
    everyone = sorted(read_adjudicators(labels_paths, packet), key=lambda labels: labels.adjudicator)
    names = [labels.adjudicator for labels in everyone]
    resolver = None
    if resolver_path is not None:
        try:
            resolver = read_labels(resolver_path, _resolver_packet(packet, resolver_packet_path))
        except UnusableInput as exc:
            if resolver_packet_path is None and "for another packet" in str(exc):  # the likeliest cause, named
                raise UnusableInput(f"{exc}: if the resolver labelled the packet `agree --disagreements` wrote, "
                                    "give that packet as --resolver-packet") from None  # fmt: skip
            raise
        if resolver.adjudicator in names:
            raise UnusableInput(f"{resolver_path}: the resolver {resolver.adjudicator!r} is one of the adjudicators")
    elif resolver_packet_path is not None:
        raise UnusableInput("--resolver-packet is the packet of --resolver's labels: give --resolver too")
    if not 0 <= min_records < 2**31 or min_alpha != min_alpha:
        raise UnusableInput(f"--min-records {min_records} / --min-alpha {min_alpha}: out of range")
    return GoldInputs(public, packet, everyone, resolver, file_sha256(answers), policy, resamples, seed, min_alpha,
                      min_records)  # fmt: skip


def _resolver_packet(packet: Packet, path: Path | None) -> Packet:
    """The packet the resolver labelled: the packet itself, or one written from it by
    `agree --disagreements` (its from_packet_sha256 names the packet; its records are
    the packet's)."""
    if path is None:
        return packet
    further = read_packet(path)
    origin = read_json_file(path).get("from_packet_sha256")
    if origin != packet.sha256:
        raise UnusableInput(f"{path}: not written from {packet.path} (from_packet_sha256 {origin!r}, "
                            f"the packet's {packet.sha256})")  # fmt: skip
    for record in further.records:
        if packet.record(record["id"]) != record:
            raise UnusableInput(f"{path}: record {record['id']} is not the packet's record")
    return Packet(further.path, further.sha256, further.corpus_sha256, packet.rubric, further.records)


def derive(inputs: GoldInputs, progress: Progress) -> tuple[str, str, dict[str, Any]]:
    """(the semantic bundle's text, the report's text, the report) — nothing written."""
    packet = inputs.packet
    with connect() as con:
        progress.step("read the public corpus")
        load_public(con, inputs.public)
        progress.step("measure the agreement and decide the gold labels")
        label_tables(con, packet, [inputs.resolver] if inputs.resolver else [], table="resolver_labels")
        con.execute("ALTER TABLE resolver_labels DROP COLUMN adjudicator")
        label_tables(con, packet, inputs.everyone)
        probe_tables(con, packet, inputs.everyone)
        for name, value in (("gold_policy", inputs.policy), ("agreement_resamples", inputs.resamples),
                            ("agreement_seed", inputs.seed), ("gold_min_alpha", inputs.min_alpha),
                            ("gold_min_records", inputs.min_records)):  # fmt: skip
            con.execute(f"SET VARIABLE {name} = ?", [value])
        run_steps(con, GOLD_STEPS)
        gold = rows(con, "SELECT id, split, field, gold AS values, decided_by FROM gold_labels WHERE gold IS NOT NULL "
                         "ORDER BY record_index, field_index")  # fmt: skip
        excluded = rows(con, "SELECT id, field, excluded AS reason FROM gold_labels WHERE gold IS NULL "
                             "ORDER BY record_index, field_index")  # fmt: skip
        counts = rows(con, "SELECT * FROM gold_counts")
        agreement = rows(con, "SELECT * FROM agreement")
        judges = rows(con, "SELECT * FROM judge_agreement")
        probe = rows(con, "SELECT * FROM probe_changes")
        ceilings = rows(con, "SELECT * FROM gold_ceilings")
        adjudicator_ceilings = rows(con, "SELECT * EXCLUDE (field_index) FROM adjudicator_ceilings")
        gates = {"min_alpha": inputs.min_alpha, "min_records": inputs.min_records}
        weaknesses = rows(con, "SELECT * FROM gold_gates")
        described = [_who(labels) for labels in inputs.everyone]
        models = sorted({who["model"] for who in described if who["kind"] == "model" and "model" in who})
        semantic = dumps({
            "schema": SEMANTIC_SCHEMA, "corpus_sha256": packet.corpus_sha256, "answers_sha256": inputs.answers_sha256,
            "packet_sha256": packet.sha256, "rubric_sha256": packet.rubric.sha256, "policy": inputs.policy,
            "rubric": packet.rubric.as_json(), "ceilings": ceilings, "adjudicator_ceilings": adjudicator_ceilings,
            "gates": gates, "weaknesses": weaknesses, "model_adjudicators": models, "gold": gold, "excluded": excluded,
        })  # fmt: skip
        progress.step("check for leaks")
        semantic_sha256 = _sha256(semantic)
        checks = _leak_checks(con, inputs, semantic_sha256)
    report = {
        "schema": SEMANTIC_REPORT_SCHEMA, "semantic_sha256": semantic_sha256, "corpus_sha256": packet.corpus_sha256,
        "answers_sha256": inputs.answers_sha256, "packet_sha256": packet.sha256, "rubric_sha256": packet.rubric.sha256,
        "policy": inputs.policy, "adjudicators": [_who(labels) for labels in inputs.everyone],
        "resolver": _who(inputs.resolver) if inputs.resolver else None, "counts": counts,
        "agreement": {"resamples": inputs.resamples, "seed": inputs.seed, "figures": agreement},
        "ceilings": ceilings, "adjudicator_ceilings": adjudicator_ceilings, "gates": gates, "weaknesses": weaknesses,
        "judges": judges, "probe": probe, "leak_checks": checks,
    }  # fmt: skip
    return semantic, dumps(report), report


def _leak_checks(con: Any, inputs: GoldInputs, semantic_sha256: str) -> dict[str, bool]:
    """semantic_leak_checks.sql over byte scans of the public corpus and the packet and
    the packet's records as its file holds them."""
    needles = {"semantic_sha256": semantic_sha256, "semantic_schema": SEMANTIC_SCHEMA}
    scan = [(path_kind, name, hit) for path_kind, path in (("public", inputs.public), ("packet", inputs.packet.path))
            for name, hit in zip(needles, file_contains(path, list(needles.values())).values())]  # fmt: skip
    create_table(con, "semantic_scan", {"file": "VARCHAR", "needle": "VARCHAR", "found": "BOOLEAN"}, scan)
    document = read_json_file(inputs.packet.path)
    extra_top = len(set(document) - PACKET_KEYS)
    given = [(r["id"], r.get("split"), r.get("number") if type(r.get("number")) is int else None, r["title"],
              r["body"], len(set(r) - RECORD_KEYS) + extra_top) for r in inputs.packet.records]  # fmt: skip
    columns = {"id": "VARCHAR", "split": "VARCHAR", "number": "BIGINT", "title": "VARCHAR", "body": "VARCHAR",
               "extra_keys": "INTEGER"}  # fmt: skip
    con.register("_given", _arrow_rows(given, list(columns)))
    con.execute("CREATE OR REPLACE TABLE packet_given AS SELECT * FROM _given")
    run_steps(con, SEMANTIC_LEAK_CHECK_STEPS)
    checks = {name: bool(ok) for name, ok in rows(con, "SELECT * FROM semantic_leak_checks")[0].items()}
    failed = [name for name, ok in checks.items() if not ok]
    if failed:
        raise SemanticLeakCheckFailed(failed)
    return dict(sorted(checks.items()))


def _arrow_rows(values: list[tuple[Any, ...]], names: list[str]) -> Any:
    import pyarrow as pa

    return pa.table({name: [row[i] for row in values] for i, name in enumerate(names)})


def _who(labels: Labels) -> dict[str, Any]:
    """An adjudicator as the report names them: the labels file's digest, and a model's
    name and prompt digest where the file gives them."""
    described: dict[str, Any] = {"name": labels.adjudicator, "kind": labels.kind,
                                 "labels_sha256": file_sha256(labels.path), "labels": len(labels.labels)}  # fmt: skip
    if labels.path.suffix.lower() != ".csv":
        given = read_json_file(labels.path).get("adjudicator", {})
        described.update({k: given[k] for k in ("model", "prompt_sha256") if isinstance(given.get(k), str)})
    return described


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_gold(
    inputs: GoldInputs, output: Path, report_path: Path, progress: Progress, allow_weak: bool = False, *,
    force: bool = False,
) -> dict[str, Any]:
    """Write the semantic bundle (private) and its report, both or neither; the report. A
    weak gold (gold_gates.sql) is refused (WeakGold) unless allow_weak; a bundle or report
    made from other inputs (the gates among them) is replaced only with force."""
    semantic, report_text, report = derive(inputs, progress)
    if report["weaknesses"] and not allow_weak:
        raise WeakGold(report["weaknesses"])
    outputs = Outputs([output, report_path], private=[output])
    try:
        progress.step("write the semantic bundle and its report")
        temps = [(output, outputs.temp_for(output, private=True)), (report_path, outputs.temp_for(report_path))]
        write_text(temps[0][1], semantic)
        write_text(temps[1][1], report_text)
        if not force:
            replacing.refuse_others(temps, f"these inputs ({_inputs_named(report)})", _gold_made_from)
        outputs.commit()
    finally:
        outputs.discard()
    return report


def _inputs_named(report: dict[str, Any]) -> str:
    """The inputs of a semantic bundle, as its report records them."""
    adjudicators = report.get("adjudicators") or []
    people = ", ".join(f"{a.get('name')} ({str(a.get('labels_sha256'))[:12]})" for a in adjudicators)
    resolver = report.get("resolver")
    return (f"packet {report.get('packet_sha256')}, labels of {people or 'no one'}"
            + (f", resolver {resolver.get('name')}" if isinstance(resolver, dict) else "")
            + f", policy {report.get('policy')}" + _gates_named(report))  # fmt: skip


def _gates_named(report: dict[str, Any]) -> str:
    """The gates a report was made with, and whether its gold was written weak (--allow-weak)."""
    gates = report.get("gates")
    if not isinstance(gates, dict):
        return ""
    weak = ", written weak (--allow-weak)" if report.get("weaknesses") else ""
    return f", gates --min-alpha {gates.get('min_alpha')} --min-records {gates.get('min_records')}{weak}"


def _gold_made_from(path: Path) -> str:
    """What made an existing semantic bundle or report: its report's inputs (the bundle's
    own header names its packet and policy)."""
    head = replacing.head_fields(path)
    if head.get("schema") == SEMANTIC_REPORT_SCHEMA:
        try:
            return _inputs_named(read_json_file(path))
        except UnusableInput:
            pass
    if head.get("schema") == SEMANTIC_SCHEMA and "packet_sha256" in head:
        try:  # its policy and gates are in it too (read whole: only to say why it is refused)
            bundle = read_json_file(path)
            settings = f", policy {bundle.get('policy')}{_gates_named(bundle)}"
        except (UnusableInput, AttributeError):
            settings = ""
        return f"packet {head['packet_sha256']}{settings} with other labels or settings (see its report)"
    return "something else (not a semantic bundle or report of these inputs)"


def verify_semantic(semantic: Path, report_path: Path, inputs: GoldInputs, progress: Progress) -> list[str]:
    """The differences between the files and the bundle and report derived again from the
    inputs (the policy, resamples and seed read from the report): none when verified."""
    expected_semantic, expected_report, _ = derive(inputs, progress)
    problems = []
    for path, expected in ((semantic, expected_semantic), (report_path, expected_report)):
        try:
            given = path.read_bytes()
        except OSError as exc:
            raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
        if given != expected.encode("utf-8"):
            problems.append(f"{path}: does not re-derive from the packet and labels files (sha256 "
                            f"{file_sha256(path)}, re-derived {_sha256(expected)}){_labels_differ(report_path, inputs)}")  # fmt: skip
    return problems


def report_gates(report_path: Path) -> dict[str, Any]:
    """The gates a semantic report was made with (read_inputs' min_alpha, min_records)."""
    gates = read_json_file(report_path).get("gates")
    if not (isinstance(gates, dict) and isinstance(gates.get("min_alpha"), int | float)
            and type(gates.get("min_records")) is int):  # fmt: skip
        raise UnusableInput(f"{report_path}: not a semantic report with its gates (min_alpha, min_records)")
    return {"min_alpha": float(gates["min_alpha"]), "min_records": gates["min_records"]}


def _labels_differ(report_path: Path, inputs: GoldInputs) -> str:
    """Which labels files the report names that were not given, or were given but it does
    not name (by their digests): the usual reason a semantic bundle does not re-derive."""
    try:
        report = read_json_file(report_path)
        named = [*report.get("adjudicators", []), *([report["resolver"]] if report.get("resolver") else [])]
        named_digests = {who["labels_sha256"]: who.get("name") for who in named}
    except (UnusableInput, AttributeError, TypeError, KeyError):
        return ""
    given = {file_sha256(labels.path): labels.path for labels in [*inputs.everyone, *filter(None, [inputs.resolver])]}
    missing = [f"{name!r} (labels_sha256 {digest})" for digest, name in named_digests.items() if digest not in given]
    extra = [str(path) for digest, path in given.items() if digest not in named_digests]
    parts = ([f"the report names labels not given: {', '.join(missing)}"] if missing else []) + (
        [f"labels given that the report does not name: {', '.join(extra)}"] if extra else [])
    return f"; {'; '.join(parts)}" if parts else ""


def report_settings(report_path: Path) -> tuple[str, int, int]:
    """The policy, resamples and seed a semantic report was made with."""
    report = read_json_file(report_path)
    agreement = report.get("agreement") if isinstance(report, dict) else None
    if not (isinstance(agreement, dict) and report.get("schema") == SEMANTIC_REPORT_SCHEMA
            and report.get("policy") in POLICIES and type(agreement.get("resamples")) is int
            and type(agreement.get("seed")) is int):  # fmt: skip
        raise UnusableInput(f"{report_path}: not a semantic report ({SEMANTIC_REPORT_SCHEMA}) with its policy, "
                            "resamples and seed")  # fmt: skip
    return report["policy"], agreement["resamples"], agreement["seed"]


def ceiling_lines(report: dict[str, Any]) -> list[str]:
    """Per field and split: the ceiling measured on the records graded, each adjudicator's
    accuracy against the others' gold, and the coverage."""
    lines = []
    for c in report["ceilings"]:
        each = ", ".join(f"{printable(a['adjudicator'])} {a['accuracy']:.3f}" for a in report["adjudicator_ceilings"]
                         if (a["field"], a["split"]) == (c["field"], c["split"]))  # fmt: skip
        kept = (f"{'each against the others: ' + each + '; ' if each else ''}gold on {c['gold_records']}/"
                f"{c['packet_records']} {c['split']} records (coverage {c['coverage']:.3f})")  # fmt: skip
        if c["ceiling"] is None:
            lines.append(f"ceiling {c['field']} on {c['split']}: {c['note']}; {kept}")
        else:
            lines.append(f"ceiling {c['field']} on {c['split']}: {c['ceiling']:.3f} [{c['ceiling_low']:.3f}, "
                         f"{c['ceiling_high']:.3f}] ({c['ceiling_basis']}); {kept}")  # fmt: skip
    return lines
