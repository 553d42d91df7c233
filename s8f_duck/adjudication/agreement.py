"""`s8f-duck adjudicate agree`: how far the adjudicators agree, per field: how many records
each labelled, raw agreement and Cohen's kappa for every pair, Krippendorff's alpha over
all, each with a seeded 95% bootstrap interval over the packet's records (the SQL of
steps.AGREEMENT_STEPS). A set-valued field's label is its whole set for raw agreement and
kappa; alpha compares sets by MASI (label_distances.sql)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.adjudication.labels import Labels, _checked, read_adjudicators
from s8f_duck.adjudication.packet import Packet, read_packet
from s8f_duck.adjudication.probe import probe_lines
from s8f_duck.pipeline.steps import AGREEMENT_STEPS, connect, create_table, rows, run_steps
from s8f_duck.pipeline.text_tables import aligned, csv_text
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import read_json_file
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.printable import printable
from s8f_duck.safety.writers import write_text

SET_SEPARATOR = " + "  # between the labels of a set-valued field's one nominal label


def agreement(
    packet_path: Path, labels_paths: Sequence[Path], resamples: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """The agreement document: per adjudicator the records labelled per field, and the
    figures (agreement.sql's rows)."""
    if resamples < 1:
        raise UnusableInput(f"--resamples {resamples}: need at least 1")
    if not -(2**63) <= seed < 2**63:
        raise UnusableInput(f"--seed {seed}: must fit in 64 bits")
    packet = read_packet(packet_path)
    everyone = read_adjudicators(labels_paths, packet)
    tables = _tables(packet, everyone, resamples, seed)
    return {
        "packet_sha256": packet.sha256,
        "resamples": resamples,
        "seed": seed,
        "adjudicators": [_labelled(packet, labels) for labels in everyone],
        "figures": tables["agreement"],
        "confusion": tables["pair_confusion"],
        "disagreements": [{"id": row["id"], "fields": row["fields"]} for row in tables["disagreements"]],
        "judges": tables["judge_agreement"],
        "probe": tables["probe_changes"],
    }


def figures(packet: Packet, everyone: Sequence[Labels], resamples: int, seed: int) -> list[dict[str, Any]]:
    """The agreement figures alone (agreement.sql's rows)."""
    return _tables(packet, everyone, resamples, seed)["agreement"]


def _tables(packet: Packet, everyone: Sequence[Labels], resamples: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    with connect() as con:
        label_tables(con, packet, everyone)
        probe_tables(con, packet, everyone)
        con.execute("SET VARIABLE agreement_resamples = ?", [resamples])
        con.execute("SET VARIABLE agreement_seed = ?", [seed])
        run_steps(con, AGREEMENT_STEPS)
        names = ("agreement", "pair_confusion", "disagreements", "judge_agreement", "probe_changes")
        return {name: rows(con, f"SELECT * FROM {name}") for name in names}


def label_tables(con: duckdb.DuckDBPyConnection, packet: Packet, everyone: Sequence[Labels],
                 table: str = "adjudicated_labels") -> None:  # fmt: skip
    """The packet's records (packet_units), its rubric's fields (rubric_fields) and the
    labels (`table`: a set-valued field's set both joined as one label and as a list)."""
    units = [(k, record["id"], record.get("split")) for k, record in enumerate(packet.records)]
    create_table(con, "packet_units", {"record_index": "INTEGER", "id": "VARCHAR", "split": "VARCHAR"}, units)
    fields = [(k, field.name, field.multi) for k, field in enumerate(packet.rubric.fields)]
    create_table(con, "rubric_fields", {"field_index": "INTEGER", "field": "VARCHAR", "multi": "BOOLEAN"}, fields)
    if table == "adjudicated_labels":  # who they are: kinds for the ceilings and the judges' check
        create_table(con, "adjudicators", {"adjudicator": "VARCHAR", "kind": "VARCHAR"},
                     [(labels.adjudicator, labels.kind) for labels in everyone])  # fmt: skip
    labelled = [(labels.adjudicator, record_id, field, SET_SEPARATOR.join(values), list(values))
                for labels in everyone for (record_id, field), values in labels.labels.items()]  # fmt: skip
    con.register("_labels", _arrow(labelled))
    con.execute(f'CREATE OR REPLACE TABLE "{table}" AS SELECT * FROM _labels')
    con.unregister("_labels")


def probe_tables(con: duckdb.DuckDBPyConnection, packet: Packet, everyone: Sequence[Labels]) -> None:
    """probe_labels: each model adjudicator's second answers, checked as labels are."""
    labelled = []
    for labels in everyone:  # the probe as read with the labels: the file is read once
        if labels.probe is None:
            continue
        second = _checked(labels.path, packet, labels.adjudicator, labels.kind, labels.probe)
        labelled += [(labels.adjudicator, record_id, field, SET_SEPARATOR.join(values), list(values))
                     for (record_id, field), values in second.labels.items()]  # fmt: skip
    con.register("_probe", _arrow(labelled))
    con.execute("CREATE OR REPLACE TABLE probe_labels AS SELECT * FROM _probe")
    con.unregister("_probe")


def probe_changes(packet: Packet, everyone: Sequence[Labels]) -> list[dict[str, Any]]:
    """probe_changes.sql's rows for these labels files (on a connection of its own)."""
    with connect() as con:
        label_tables(con, packet, everyone)
        probe_tables(con, packet, everyone)
        run_steps(con, ("adjudication/probe_changes",))
        return rows(con, "SELECT * FROM probe_changes")


def _arrow(labelled: list[tuple[Any, ...]]) -> Any:
    """The labels as an Arrow table of fixed types (also when there are none)."""
    import pyarrow as pa

    text = pa.string()
    schema = pa.schema([("adjudicator", text), ("id", text), ("field", text), ("value", text),
                        ("labels", pa.list_(text))])  # fmt: skip
    return pa.table([[row[i] for row in labelled] for i in range(len(schema))], schema=schema)


def _labelled(packet: Packet, labels: Labels) -> dict[str, Any]:
    counts = {field.name: 0 for field in packet.rubric.fields}
    for _, field in labels.labels:
        counts[field] += 1
    return {"name": labels.adjudicator, "kind": labels.kind, "file": str(labels.path), "labelled": counts}


def to_text(document: dict[str, Any], fmt: str) -> str:
    """The figures as a table, JSON or CSV."""
    if fmt == "json":
        return json.dumps(document, indent=2)
    names = ["field", "statistic", "adjudicators", "records", "value", "low", "high", "resamples"]
    data = [[printable(v) if isinstance(v, str) else v for v in (row[n] for n in names)] for row in document["figures"]]
    if fmt == "csv":
        return csv_text(names, data)
    header = ["adjudicator", "person or model", *(f"{field} labelled" for field in document["adjudicators"][0]["labelled"])]
    who = [[printable(a["name"]), a["kind"], *map(str, a["labelled"].values())] for a in document["adjudicators"]]
    cells = [names, *[["" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v) for v in row]
                      for row in data]]  # fmt: skip
    confusion = [["field", "pair", "first gave", "second gave", "records"],
                 *[[c["field"], printable(f"{c['a']} ~ {c['b']}"), printable(c["label_a"]), printable(c["label_b"]),
                    str(c["records"])]
                   for c in document["confusion"]]]  # fmt: skip
    disagreed = (f"records they disagree on: {len(document['disagreements'])} "
                 "(--disagreements FILE writes them as a packet; --format json lists them)")
    explained = ("low, high: the 95% bootstrap interval of the value over the records; resamples: of the "
                 "--resamples draws of the records, those where the statistic is defined")
    parts = [aligned([header, *who]), aligned(cells) + "\n" + explained, aligned(confusion), disagreed]
    if document["probe"]:
        parts.append("\n".join(probe_lines(document["probe"])))
    if document["judges"]:
        parts.append("models against people: each model's kappa with the persons beside the persons' own\n"
                     + aligned(judge_rows(document["judges"])))  # fmt: skip
    return "\n\n".join(parts)


def judge_rows(judges: list[dict[str, Any]]) -> list[list[str]]:
    """judge_agreement.sql's rows as table cells, with the verdict in words."""

    def kappa(row: dict[str, Any], name: str) -> str:
        return "-" if row[name] is None else f"{row[name]:.3f} [{row[name + '_low']:.3f}, {row[name + '_high']:.3f}]"

    def verdict(row: dict[str, Any]) -> str:
        if row["as_well_as_people"] is None:
            return "no people to compare with" if row["kappa_with_people"] is None else "no pair of people"
        if row["as_well_as_people"]:
            return "as well as people"
        return "less well than people" if row["clearly_below"] else "below people, within its interval"

    return [["field", "model", "people", "kappa with people", "people's kappa", "verdict"],
            *[[j["field"], printable(j["model"]), str(j["people"]), kappa(j, "kappa_with_people"), kappa(j, "people_kappa"),
               verdict(j)] for j in judges]]  # fmt: skip


def write_disagreements(document: dict[str, Any], packet_path: Path, output: Path) -> int:
    """A packet of the records the adjudicators disagree on (the same rubric and digests,
    and the packet it came from), for a further adjudicator; how many it holds."""
    packet = read_json_file(packet_path)
    wanted = {d["id"] for d in document["disagreements"]}
    outputs = Outputs([output])
    try:
        subset = {**packet, "from_packet_sha256": document["packet_sha256"],
                  "records": [r for r in packet["records"] if r["id"] in wanted]}  # fmt: skip
        write_text(outputs.temp_for(output), dumps(subset))
        outputs.commit()
    finally:
        outputs.discard()
    return len(subset["records"])
