"""`s8f-duck adjudicate packet`: the records to adjudicate, chosen from a public corpus
without a person's choice (sql/adjudication/packet_records.sql), with their public text
only, bound to the corpus's and the rubric's digests. Its own SHA-256 identifies it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.adjudication.rubric import Rubric, parse_rubric, read_rubric
from s8f_duck.pipeline.steps import (
    GROWN_PACKET_RECORD_STEPS,
    GROWN_PACKET_STEPS,
    PACKET_STEPS,
    connect,
    create_table,
    rows,
    run_steps,
)
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import load_public
from s8f_duck.reading.scan import file_sha256
from s8f_duck.reading.unique_keys import read_json_once
from s8f_duck.safety import arguments, replacing
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
    older_sha256s: tuple[str, ...] = ()  # the packets it extends (--extend): their labels files count
    hash_sha256: str = ""  # the digest its records are ordered by (the first packet's corpus's)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {r["id"]: r for r in self.records})  # once: every label looks one up

    def record(self, record_id: str) -> dict[str, Any] | None:
        return self._by_id.get(record_id)  # type: ignore[attr-defined]


def make_packet(
    public_path: Path, rubric_path: Path, output_path: Path, records: int, splits: tuple[str, ...] = ("tune", "test"),
    min_body_bytes: int = 0, progress: Progress | None = None, extend: Path | None = None, where: str | None = None,
    force: bool = False,
) -> tuple[str, int]:  # fmt: skip
    """Write the packet; return its SHA-256 and how many records it holds. extend: an older
    packet whose records are all kept (its labels files count for them); where: a SQL
    condition on the public corpus's columns choosing the records that may be added. A
    packet made from other inputs at the output path is replaced only with force."""
    progress = progress or Progress("adjudicate packet")
    arguments.check({"--public": public_path, "--rubric": rubric_path, "--extend": extend}, {"--output": output_path})
    if records < 1:
        raise UnusableInput(f"--records {records}: give at least 1 record per split")
    unknown = [s for s in splits if s not in SPLITS]
    if unknown or not splits or len(set(splits)) != len(splits):
        raise UnusableInput(f"--splits {','.join(splits)}: give some of {', '.join(SPLITS)}, each once")
    rubric = read_rubric(rubric_path)
    older = read_packet(extend) if extend is not None else None
    if older is not None and older.rubric.sha256 != rubric.sha256:
        raise UnusableInput(f"--extend {extend}: the packet was made with another rubric (rubric_sha256 "
                            f"{older.rubric.sha256}, {rubric_path}'s {rubric.sha256})")  # fmt: skip
    with open(public_path, "rb") as f:
        corpus_sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    grown = older is not None or where is not None
    outputs = Outputs([output_path])
    try:
        with connect() as con:
            progress.step("read the public corpus")
            load_public(con, public_path)
            progress.step("choose the records")
            for name, value in (("packet_corpus_sha256", corpus_sha256), ("packet_splits", list(splits)),
                                ("packet_records", records), ("packet_min_body_bytes", min_body_bytes)):  # fmt: skip
                con.execute(f"SET VARIABLE {name} = ?", [value])
            if grown:
                _grow(con, public_path, older, where, corpus_sha256)
            else:
                run_steps(con, PACKET_STEPS)
            chosen = rows(con, "SELECT id, split, number, title, body FROM packet_records")
        if not chosen:
            raise UnusableInput(f"{public_path}: no record of {', '.join(splits)} has a body of {min_body_bytes} bytes "
                                "or more: nothing to adjudicate")  # fmt: skip
        document = {
            "schema": PACKET_SCHEMA, "corpus_sha256": corpus_sha256, "rubric_sha256": rubric.sha256,
            "rubric": rubric.as_json(), "records": chosen,
        }  # fmt: skip
        if older is not None:  # (absent otherwise: a packet is byte for byte as before)
            document["extends"] = {"packet_sha256s": [older.sha256, *older.older_sha256s],
                                   "hash_sha256": older.hash_sha256 or older.corpus_sha256}  # fmt: skip
        if where is not None:
            document["where"] = where
        progress.step("write the packet")
        temp = outputs.temp_for(output_path)
        digest = write_text(temp, dumps(document))
        if not force:
            wanted = f"this corpus, rubric and choice ({corpus_sha256[:12]}…, rubric {rubric.sha256[:12]}…)"
            replacing.refuse_others([(output_path, temp)], wanted, _made_from)
        outputs.commit()
    finally:
        outputs.discard()
    return digest, len(chosen)


def _made_from(path: Path) -> str:
    """What made an existing packet, as its header says."""
    head = replacing.head_fields(path)
    if head.get("schema") == PACKET_SCHEMA:
        return (f"corpus {str(head.get('corpus_sha256'))[:12]}…, rubric {str(head.get('rubric_sha256'))[:12]}… "
                f"(packet {file_sha256(path)[:12]}…)")  # fmt: skip
    return "something else (not a packet)"


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
    extends = document.get("extends")
    older: tuple[str, ...] = ()
    hash_sha256 = ""
    if extends is not None:
        sha256s = extends.get("packet_sha256s") if isinstance(extends, dict) else None
        if not (isinstance(sha256s, list) and all(isinstance(s, str) for s in sha256s)
                and isinstance(extends.get("hash_sha256"), str)):  # fmt: skip
            raise UnusableInput(f"{path}: extends must be an object with packet_sha256s (strings) and hash_sha256")
        older, hash_sha256 = tuple(sha256s), extends["hash_sha256"]
    return Packet(path, sha256, str(document.get("corpus_sha256", "")), rubric, records, older, hash_sha256)


def _grow(con: Any, public_path: Path, older: Packet | None, where: str | None, corpus_sha256: str) -> None:
    """packet_records for --extend / --where (sql/adjudication/grown/packet_records.sql):
    the older packet's records (which must be records of this corpus, with the same titles),
    the records --where chooses, the hash order of the first packet."""
    run_steps(con, GROWN_PACKET_STEPS)
    kept = [(r["id"], r.get("split"), _number(r["id"]), r["title"], r["body"])
            for r in (older.records if older else [])]  # fmt: skip
    create_table(con, "packet_older", {"id": "VARCHAR", "split": "VARCHAR", "number": "BIGINT", "title": "VARCHAR",
                                       "body": "VARCHAR"}, kept)  # fmt: skip
    if older is not None:
        strangers = rows(con, "SELECT older.id, candidate.title IS NULL AS missing FROM packet_older AS older "
                              "LEFT JOIN packet_candidates AS candidate USING (id) WHERE candidate.title "
                              "IS DISTINCT FROM older.title ORDER BY older.number LIMIT 1")  # fmt: skip
        if strangers:
            why = "is not in" if strangers[0]["missing"] else "has another title in"
            raise UnusableInput(f"--extend {older.path}: its record {strangers[0]['id']} {why} {public_path}: "
                                "the packet is of another corpus")  # fmt: skip
    query = f"SELECT number FROM packet_candidates WHERE ({'true' if where is None else where})"
    try:  # one SELECT, as DuckDB's parser reads it: never a second statement after the condition
        parsed = json.loads(con.execute("SELECT json_serialize_sql(?)", [query]).fetchone()[0])
        if parsed.get("error") or len(parsed.get("statements", [])) != 1:
            raise duckdb.ParserException(parsed.get("error_message") or "more than one statement")
        con.execute(f"CREATE OR REPLACE TABLE packet_wanted AS {query}")
    except duckdb.Error as exc:
        message = " ".join(str(exc).split(" LINE ")[0].split())  # (DuckDB's position lines left out)
        raise UnusableInput(f"--where {where!r}: not a condition on the public corpus's columns (id, split, number, "
                            f"title, body, state, labels, created_at, updated_at, closed_at, url): {message}") from None
    con.execute("SET VARIABLE packet_hash_sha256 = ?",
                [(older.hash_sha256 or older.corpus_sha256) if older else corpus_sha256])  # fmt: skip
    run_steps(con, GROWN_PACKET_RECORD_STEPS)


def _number(record_id: str) -> int | None:
    digits = record_id.removeprefix("issue-")
    return int(digits) if digits.isdigit() else None
