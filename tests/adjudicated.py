"""What the adjudication tests share: the example rubric and labels files written for a
packet (the S8f packet itself is conftest's `packet` fixture)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from conftest import REPO, S8F_ANSWERS, S8F_PUBLIC, run_cli

from s8f_duck.adjudication.labels import LABELS_SCHEMA

RUBRIC = REPO / "examples" / "rubrics" / "triage.toml"


def labels_file(path: Path, packet_path: Path, name: str, entries: list[dict[str, Any]], kind: str = "model") -> Path:
    sha = hashlib.sha256(packet_path.read_bytes()).hexdigest()
    document = {"schema": LABELS_SCHEMA, "packet_sha256": sha, "adjudicator": {"name": name, "kind": kind},
                "labels": entries}  # fmt: skip
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def quote_of(record: dict[str, Any]) -> str:
    return (record["body"] or record["title"])[:12] or record["title"][:5]


def labelled(packet_path: Path, choose: Any) -> list[dict[str, Any]]:
    document = json.loads(packet_path.read_text(encoding="utf-8"))
    entries = []
    for k, record in enumerate(document["records"]):
        for field in document["rubric"]:
            value = choose(k, field)
            if value is not None:
                entries.append({"id": record["id"], "field": field["name"], "values": [value],
                                "evidence": [quote_of(record)] if field["evidence"] else []})  # fmt: skip
    return entries


# three adjudicators: a and c agree on two records in three, b labels only the first 60
CHOICES = {
    "a": lambda k, f: f["values"][0],
    "b": lambda k, f: f["values"][k % 2] if k < 60 else None,
    "c": lambda k, f: f["values"][0] if k % 3 else f["values"][1],
}


def three(packet: Path, folder: Path) -> list[Path]:
    return [labels_file(folder / f"{name}.json", packet, name, labelled(packet, choose))
            for name, choose in CHOICES.items()]  # fmt: skip


def made_gold(packet: Path, folder: Path, policy: str = "majority") -> Path:
    """The semantic answer bundle of the three adjudicators of CHOICES, by `adjudicate gold`."""
    semantic = folder / "semantic.json"
    made = run_cli("adjudicate", "gold", packet, *three(packet, folder), "--policy", policy, "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", semantic, "--report", folder / "semantic-report.json",
                   "--resamples", "50", "--allow-weak")  # fmt: skip  # CHOICES' alpha is below the gates
    assert made.returncode == 0, made.stderr
    return semantic
