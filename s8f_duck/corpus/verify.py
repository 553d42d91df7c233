"""`s8f-duck verify` (docs/format.md §9): the reference's checks, then a full re-derivation.

The public corpus is fed back through the freeze pipeline, scrubbed again with the
redaction map (text that is scrubbed holds no match of it, so nothing changes); the
re-derived public corpus, answer bundle and report must equal the given ones byte for
byte, so key order, number forms and JSON types are checked as well as values. Only the
report's `scrubbed_matches` (matches in the raw text) cannot be re-derived: its type
and range are checked. With the raw dump as well, the artifacts must equal a fresh
freeze of it byte for byte; with a published digest, the public corpus must have it.
"""

from __future__ import annotations

import filecmp
import json
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import duckdb

from s8f_duck.corpus.artifacts import ANSWERS_SCHEMA, REPORT_SCHEMA, file_sha256
from s8f_duck.corpus.freeze import (
    DEFAULT_REDACTIONS,
    LeakCheckFailed,
    PublicDiffers,
    create_redactions,
    freeze,
    freeze_tables,
    load_redactions,
)
from s8f_duck.corpus.refresh import left_out_given, read_older
from s8f_duck.pipeline.steps import connect
from s8f_duck.reading.gojson import dumps
from s8f_duck.reading.load import check_public_strictly, load_bundle, load_public, read_json_file
from s8f_duck.reading.schemas import swapped_hint
from s8f_duck.safety.errors import UnusableInput, Verdict, not_a_file
from s8f_duck.safety.progress import Progress

MAX_SHOWN = 12
NAMES = ("public", "answers", "report")
SCRUB_MARK = "[redacted:public-corpus]"


@dataclass
class Verification:
    problems: list[str]  # empty when the triple verifies
    corpus_sha256: str  # the public corpus's digest
    scrubbed_matches: Any  # the report's, checked for type and range only unless the raw dump was given


def differences(given: Any, derived: Any, path: str) -> list[str]:
    """Where two decoded JSON values differ, JSON types and key order included (1000.0
    is not 1000, false is not 0); lists of records are matched by `id`."""
    if isinstance(given, dict) and isinstance(derived, dict):
        found = []
        for key in [*given, *(k for k in derived if k not in given)]:
            if key not in derived:
                found.append(f"{path}.{key}: present in the file, absent when re-derived")
            elif key not in given:
                found.append(f"{path}.{key}: missing from the file")
            else:
                found += differences(given[key], derived[key], f"{path}.{key}")
        if not found and list(given) != list(derived):
            at, mine, theirs = next((i, g, d) for i, (g, d) in enumerate(zip(given, derived)) if g != d)
            found.append(f"{path}: keys in another order: key {at + 1} is {mine!r} in the file, {theirs!r} re-derived")
        return found
    keyed = isinstance(given, list) and isinstance(derived, list) and given and derived
    if keyed and all(isinstance(x, dict) and "id" in x for x in [*given, *derived]):
        mine = {x["id"]: x for x in derived}
        found = []
        for item in given:
            if item["id"] not in mine:
                found.append(f"{path}[{item['id']}]: record not re-derived from the public corpus")
            else:
                found += differences(item, mine.pop(item["id"]), f"{path}[{item['id']}]")
        found += [f"{path}[{ident}]: record missing from the file" for ident in mine]
        if not found and [x["id"] for x in given] != [x["id"] for x in derived]:
            found.append(f"{path}: records out of order")
        return found
    if isinstance(given, list) and isinstance(derived, list) and given == derived:  # equal values, maybe not types
        return [p for i, (g, d) in enumerate(zip(given, derived)) for p in differences(g, d, f"{path}[{i}]")]
    if given == derived and type(given) is not type(derived):  # 1000.0 == 1000 == True in Python
        return [f"{path}: file has {_json(given)}, re-derived {_json(derived)} (another JSON type or number form)"]
    if given != derived or type(given) is not type(derived):
        return [f"{path}: file has {_short(given)}, re-derived {_short(derived)}"]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def first_difference(name: str, given: bytes, derived: bytes) -> str:
    """The first line where two files' bytes differ, as a problem."""
    end, at = min(len(given), len(derived)), 0
    while at < end and given[at : at + 65536] == derived[at : at + 65536]:  # blocks compare with memcmp
        at += 65536
    at = min(at, end)
    while at < end and given[at] == derived[at]:
        at += 1

    def line(data: bytes) -> str:
        stop = data.find(b"\n", at)
        return data[data.rfind(b"\n", 0, at) + 1 : stop if stop >= 0 else len(data)].decode("utf-8", "replace")

    number = given.count(b"\n", 0, at) + 1
    return (
        f"{name}: line {number} differs from the re-derived file: "
        f"file has {line(given)!r}, re-derived {line(derived)!r}"
    )


def scrubbed_matches_problems(report: dict[str, Any], scrubbed_records: int) -> list[str]:
    """What can be checked of the report's scrubbed_matches without the raw text: a
    non-negative integer, and none unless some record holds the mark (every match
    leaves it in its record). More matches than scrubbed records is normal (a record can
    hold several) and so is fewer (a raw text may hold the mark already)."""
    if "scrubbed_matches" not in report:  # named by the comparison
        return []
    value = report["scrubbed_matches"]
    if type(value) is not int or value < 0:
        return [f"report.scrubbed_matches: file has {_json(value)}, expected a non-negative integer (it counts the "
                "redaction map's matches in the raw text, which cannot be re-derived without --raw)"]  # fmt: skip
    if value > 0 and scrubbed_records == 0:
        return [f"report.scrubbed_matches: file has {value}, but no record holds the mark {SCRUB_MARK}, "
                "which every match leaves in its record's text"]  # fmt: skip
    return []


def expected_digest(text: str) -> str:
    """--expect-sha256's digest, lower-cased; UnusableInput unless it is 64 hex digits."""
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise UnusableInput(f"--expect-sha256: {text!r} is not a SHA-256 digest (64 hexadecimal digits)")
    return text.lower()


def reference_checks(public_sha: str, records: int, answers_corpus: str, answers_count: int, answers_sha: str,
                     report: dict[str, Any]) -> list[str]:  # fmt: skip
    """What the reference verifier checks: digest binding, counts, report verdicts."""
    problems = []
    if answers_corpus != public_sha:
        problems.append(f"answers.corpus_sha256 is {answers_corpus!r}, the public file hashes to {public_sha}")
    if report.get("corpus_sha256") != public_sha:
        problems.append(f"report.corpus_sha256 is {report.get('corpus_sha256')!r}, the public file hashes to {public_sha}")
    if report.get("answers_sha256") != answers_sha:
        problems.append(f"report.answers_sha256 is {report.get('answers_sha256')!r}, the answer file hashes to {answers_sha}")
    if not report.get("records") == records == answers_count:
        problems.append(
            f"record counts disagree: report {report.get('records')!r}, public {records}, answers {answers_count}"
        )
    checks = report.get("leak_checks")
    if not isinstance(checks, dict) or not checks or not all(v is True for v in checks.values()):
        problems.append(f"report.leak_checks are not all true: {checks!r}")
    oracle = report.get("blind_oracle_grade")
    if not isinstance(oracle, dict) or oracle.get("quality_pass") is not True:
        problems.append("report.blind_oracle_grade does not pass")
    return problems


def _content_differences(given_paths: dict[str, Path], derived_paths: dict[str, Path], report: dict[str, Any],
                         public_sha: str, public_same: bool) -> list[str]:  # fmt: skip
    """Field-level differences between given and re-derived artifacts (the slow path):
    every artifact whose bytes differ gets at least one."""
    names = [name for name in NAMES if not (name == "public" and public_same)]
    given = {name: read_json_file(given_paths[name]) for name in names}
    derived = {name: read_json_file(derived_paths[name]) for name in names}
    # The digests were checked against the given bytes already; here contents are compared.
    derived["answers"]["corpus_sha256"] = given["answers"].get("corpus_sha256")
    for key in ("corpus_sha256", "answers_sha256", "scrubbed_matches"):  # scrub matches need the raw text
        derived["report"][key] = report.get(key)
    derived["report"]["blind_oracle_grade"]["corpus_sha256"] = public_sha  # the oracle graded this corpus
    problems = []
    for name in names:
        found = differences(given[name], derived[name], name)
        given_bytes = given_paths[name].read_bytes()
        if dumps(given[name]).encode() != given_bytes:
            found.append(f"{name}: {given_paths[name]} is not in the canonical byte layout (Go MarshalIndent)")
        if not found:  # equal values, types and order in a canonical file: only a stray byte is left
            derived_bytes = derived_paths[name].read_bytes() if name == "public" else dumps(derived[name]).encode()
            if derived_bytes != given_bytes:
                found.append(first_difference(name, given_bytes, derived_bytes))
        problems += found
    return problems


def _bundle_binding(path: Path) -> tuple[str, int]:
    """An answer bundle's corpus digest and number of answers (UnusableInput when it is not one)."""
    with connect() as con:
        corpus = load_bundle(con, path, "", ANSWERS_SCHEMA)
        (count,) = con.execute("SELECT count(*) FROM answers").fetchall()[0]
    return corpus, count


def verify(
    public_path: Path,
    answers_path: Path,
    report_path: Path,
    *,
    raw_path: Path | None = None,
    redactions_path: Path = DEFAULT_REDACTIONS,
    expect_sha256: str | None = None,
    progress: Progress | None = None,
    input_format: str = "auto",
    keep_splits: Path | None = None,
) -> Verification:
    """Every check; returns the problems found (empty when the triple verifies).
    input_format: the raw dump's form (input_forms.py). keep_splits: the older corpus the
    triple was frozen with (freeze --keep-splits); the records the report says were left
    out must be absent, and the rest re-derives as freeze made it."""
    progress = progress or Progress("verify")
    pinned = expected_digest(expect_sha256) if expect_sha256 is not None else None
    redactions = load_redactions(redactions_path)
    report = read_json_file(report_path)
    if not isinstance(report, dict) or report.get("schema") != REPORT_SCHEMA:
        found = report.get("schema") if isinstance(report, dict) else None
        raise UnusableInput(f"{report_path}: not a report: expected an object with schema {REPORT_SCHEMA!r}"
                            f"{swapped_hint(found, REPORT_SCHEMA)}")  # fmt: skip
    given = dict(zip(NAMES, (public_path, answers_path, report_path)))
    if not answers_path.is_file():  # before the long re-derivation
        raise not_a_file(answers_path)
    older = None if keep_splits is None else replace(read_older(keep_splits), left_out=left_out_given(report))
    header: dict[str, Any] = {}

    def load(con: duckdb.DuckDBPyConnection) -> str:
        # Not checked as Go reads it here: a file that re-derives to its own bytes is such
        # JSON (freeze writes nothing else); any other is checked before anything is said.
        header.update(load_public(con, public_path, strict_check=False))
        create_redactions(con, redactions_path, redactions)  # scrubbed text holds no match: the scrub changes nothing
        return str(header["source"])

    with tempfile.TemporaryDirectory(prefix="s8f-duck-verify-") as tmp, ThreadPoolExecutor(1) as pool:
        # The given answer bundle's digest, taken on the core the re-derivation leaves idle.
        given_answers_sha = pool.submit(file_sha256, answers_path)
        derived = {name: Path(tmp) / f"{name}.json" for name in NAMES}
        size = public_path.stat().st_size if public_path.is_file() else None
        progress.step("re-derive the artifacts from the public corpus")
        try:
            try:  # the re-derived public corpus compared with the given one as it is made, not written
                try:
                    result = freeze_tables(load, derived["public"], derived["answers"], derived["report"],
                                           input_bytes=size, same_public_as=public_path, older=older)  # fmt: skip
                except Exception:
                    check_public_strictly(public_path)  # its verdict comes before any other
                    raise
                public_sha, derived["public"] = result.corpus_sha256, public_path  # the same bytes
            except PublicDiffers:  # again, writing it, to compare the contents
                progress.step("re-derive the public corpus again, to find where it differs")
                result = freeze_tables(load, derived["public"], derived["answers"], derived["report"],
                                       input_bytes=size, older=older)  # fmt: skip
                public_sha = file_sha256(public_path)
        except LeakCheckFailed as exc:
            return Verification([f"re-derived leak checks fail: {', '.join(exc.failed)}"], file_sha256(public_path),
                                report.get("scrubbed_matches"))  # fmt: skip
        progress.step("compare the artifacts")
        # A file with the re-derived bytes' digest has those bytes: it is exactly as well-formed.
        answers_sha = given_answers_sha.result()
        public_same = public_sha == result.corpus_sha256
        answers_same = answers_sha == result.answers_sha256
        if answers_same:
            answers_corpus, answers_count = result.corpus_sha256, result.report["records"]
        else:
            answers_corpus, answers_count = _bundle_binding(answers_path)
        problems = reference_checks(public_sha, header["records"], answers_corpus, answers_count, answers_sha, report)
        if pinned is not None and public_sha != pinned:
            problems.append(f"public: {public_path} hashes to {public_sha}, not the expected {pinned} "
                            "(--expect-sha256)")  # fmt: skip
        if result.scrub_hits:  # most often: frozen with another map than the one verify was given
            problems.append(f"public: {len(result.scrub_hits)} record(s) hold matches of the redaction map "
                            f"{redactions_path}: if the corpus was frozen with another map, give that map "
                            "(verify --redactions MAP)")  # fmt: skip
        problems += [
            f"public.records[issue-{number}]: {matches} match(es) of the redaction map {redactions_path} left in "
            "its title or body: the public text is not scrubbed"
            for number, matches in result.scrub_hits.items()
        ]
        problems += scrubbed_matches_problems(report, result.report["scrubbed_records"])
        # The report as re-derived, with the fields checked above as the file has them.
        expected_report = {**result.report, "corpus_sha256": report.get("corpus_sha256"),
                           "answers_sha256": report.get("answers_sha256"),
                           "scrubbed_matches": report.get("scrubbed_matches")}  # fmt: skip
        expected_report["blind_oracle_grade"] = {**result.report["blind_oracle_grade"], "corpus_sha256": public_sha}
        identical = public_same and answers_same and dumps(expected_report).encode() == report_path.read_bytes()
        if not identical:
            problems += _content_differences(given, derived, report, public_sha, public_same)
        if raw_path is not None:
            progress.step("re-freeze the raw dump")
            fresh = {name: Path(tmp) / f"raw-{name}.json" for name in NAMES}
            freeze(raw_path, fresh["public"], fresh["answers"], fresh["report"], str(header["source"]),
                   redactions_path=redactions_path, min_records=0, input_format=input_format,
                   keep_splits=keep_splits)  # fmt: skip
            for name in NAMES:
                if not filecmp.cmp(given[name], fresh[name], shallow=False):
                    found = differences(read_json_file(given[name]), read_json_file(fresh[name]), name)
                    found = found or [f"{name}: bytes differ from a fresh freeze"]
                    problems += [f"{p} (fresh freeze of {raw_path})" for p in found]
    return Verification(problems, public_sha, report.get("scrubbed_matches"))


def verdict(problems: list[str]) -> None:
    """Raise a Verdict listing the first problems."""
    if problems:
        shown = "\n  ".join(problems[:MAX_SHOWN])
        more = f"\n  ... and {len(problems) - MAX_SHOWN} more" if len(problems) > MAX_SHOWN else ""
        raise Verdict(f"verification failed, {len(problems)} problem(s):\n  {shown}{more}")
