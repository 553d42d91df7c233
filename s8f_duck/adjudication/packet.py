"""`s8f-duck adjudicate packet`: the records to adjudicate, chosen from a public corpus
without a person's choice (sql/adjudication/packet_records.sql), with their public text
only, bound to the corpus's and the rubric's digests. Its own SHA-256 identifies it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from s8f_duck.adjudication.rubric import Rubric, parse_rubric, read_rubric
from s8f_duck.pipeline.steps import PACKET_STEPS, connect, rows, run_steps
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import load_public
from s8f_duck.reading.unique_keys import read_json_once
from s8f_duck.safety import arguments
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.progress import Progress
from s8f_duck.safety.writers import write_text

PACKET_SCHEMA = "s8f-duck-adjudication-packet/1"
SPLITS = ("train", "tune", "test")


@dataclass(frozen=True)
class Packet:
    path: Path
    sha256: str  # of its bytes
    corpus_sha256: str
    rubric: Rubric
    records: list[dict[str, Any]]  # id, split, number, title, body

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {r["id"]: r for r in self.records})  # once: every label looks one up

    def record(self, record_id: str) -> dict[str, Any] | None:
        return self._by_id.get(record_id)  # type: ignore[attr-defined]


def make_packet(
    public_path: Path, rubric_path: Path, output_path: Path, records: int, splits: tuple[str, ...] = ("tune", "test"),
    min_body_bytes: int = 0, progress: Progress | None = None,
) -> tuple[str, int]:  # fmt: skip
    """Write the packet; return its SHA-256 and how many records it holds."""
    progress = progress or Progress("adjudicate packet")
    arguments.check({"--public": public_path, "--rubric": rubric_path}, {"--output": output_path})
    if records < 1:
        raise UnusableInput(f"--records {records}: give at least 1 record per split")
    unknown = [s for s in splits if s not in SPLITS]
    if unknown or not splits or len(set(splits)) != len(splits):
        raise UnusableInput(f"--splits {','.join(splits)}: give some of {', '.join(SPLITS)}, each once")
    rubric = read_rubric(rubric_path)
    with open(public_path, "rb") as f:
        corpus_sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    outputs = Outputs([output_path])
    try:
        with connect() as con:
            progress.step("read the public corpus")
            load_public(con, public_path)
            progress.step("choose the records")
            for name, value in (("packet_corpus_sha256", corpus_sha256), ("packet_splits", list(splits)),
                                ("packet_records", records), ("packet_min_body_bytes", min_body_bytes)):  # fmt: skip
                con.execute(f"SET VARIABLE {name} = ?", [value])
            run_steps(con, PACKET_STEPS)
            chosen = rows(con, "SELECT id, split, number, title, body FROM packet_records")
        if not chosen:
            raise UnusableInput(f"{public_path}: no record of {', '.join(splits)} has a body of {min_body_bytes} bytes "
                                "or more: nothing to adjudicate")  # fmt: skip
        document = {
            "schema": PACKET_SCHEMA, "corpus_sha256": corpus_sha256, "rubric_sha256": rubric.sha256,
            "rubric": rubric.as_json(), "records": chosen,
        }  # fmt: skip
        progress.step("write the packet")
        digest = write_text(outputs.temp_for(output_path), dumps(document))
        outputs.commit()
    finally:
        outputs.discard()
    return digest, len(chosen)


def read_packet(path: Path) -> Packet:
    """A packet as adjudicate page, model, agree and gold read it; UnusableInput names the
    file and what is wrong."""
    try:
        with open(path, "rb") as f:
            sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    document = read_json_once(path)
    if not isinstance(document, dict) or document.get("schema") != PACKET_SCHEMA:
        raise UnusableInput(f"{path}: not a packet: expected an object with schema {PACKET_SCHEMA!r}")
    rubric_fields = document.get("rubric")
    try:
        rubric = parse_rubric({"field": rubric_fields}, b"", path)
    except UnusableInput as exc:
        raise UnusableInput(f"{path}: its rubric: {exc}".replace(f"{path}: ", "", 1)) from None
    rubric = Rubric(rubric.fields, str(document.get("rubric_sha256", "")))
    records = document.get("records")
    if not isinstance(records, list) or not records:
        raise UnusableInput(f"{path}: records must be a non-empty array")
    for k, record in enumerate(records):
        if not (isinstance(record, dict) and isinstance(record.get("id"), str) and isinstance(record.get("title"), str)
                and isinstance(record.get("body"), str)):  # fmt: skip
            raise UnusableInput(f"{path}: records[{k}]: expected an object with id, title and body strings")
    return Packet(path, sha256, str(document.get("corpus_sha256", "")), rubric, records)
