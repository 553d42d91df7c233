"""`s8f-duck verify` (SPEC §9): the reference's checks, then a full re-derivation.

The public corpus is fed back through the freeze pipeline (its text is already
scrubbed, so with an empty redaction map); the re-derived public bytes, answer bundle and
report must equal the given ones. With the raw dump as well, the artifacts must equal a
fresh freeze of it byte for byte.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

from . import bundle
from .artifacts import REPORT_SCHEMA
from .errors import UnusableInput, Verdict
from .gojson import dumps
from .freeze import DEFAULT_REDACTIONS, LeakCheckFailed, freeze, freeze_tables
from .progress import Progress
from .public import load_public
from .raw import read_json_file

MAX_SHOWN = 12


def differences(given: Any, derived: Any, path: str) -> list[str]:
    """Where two decoded JSON values differ; lists of records are matched by `id`."""
    if isinstance(given, dict) and isinstance(derived, dict):
        found = []
        for key in [*given, *(k for k in derived if k not in given)]:
            if key not in derived:
                found.append(f"{path}.{key}: present in the file, absent when re-derived")
            elif key not in given:
                found.append(f"{path}.{key}: missing from the file")
            else:
                found += differences(given[key], derived[key], f"{path}.{key}")
        return found
    keyed = isinstance(given, list) and isinstance(derived, list) and given and derived
    if keyed and all(isinstance(x, dict) and "id" in x for x in [*given, *derived]):
        mine = {x["id"]: x for x in derived}
        found = []
        for position, item in enumerate(given):
            if item["id"] not in mine:
                found.append(f"{path}[{item['id']}]: record not re-derived from the public corpus")
            else:
                found += differences(item, mine.pop(item["id"]), f"{path}[{item['id']}]")
        found += [f"{path}[{ident}]: record missing from the file" for ident in mine]
        if not found and [x["id"] for x in given] != [x["id"] for x in derived]:
            found.append(f"{path}: records out of order")
        return found
    if given != derived or type(given) is not type(derived):
        return [f"{path}: file has {_short(given)}, re-derived {_short(derived)}"]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def reference_checks(public_sha: str, records: int, answers: dict[str, Any], answers_sha: str,
                     report: dict[str, Any]) -> list[str]:  # fmt: skip
    """What the reference verifier checks: digest binding, counts, report verdicts."""
    problems = []
    if answers.get("corpus_sha256") != public_sha:
        problems.append(f"answers.corpus_sha256 is {answers.get('corpus_sha256')!r}, the public file hashes to {public_sha}")
    if report.get("corpus_sha256") != public_sha:
        problems.append(f"report.corpus_sha256 is {report.get('corpus_sha256')!r}, the public file hashes to {public_sha}")
    if report.get("answers_sha256") != answers_sha:
        problems.append(f"report.answers_sha256 is {report.get('answers_sha256')!r}, the answer file hashes to {answers_sha}")
    if not (report.get("records") == records == len(answers.get("answers") or [])):
        problems.append(
            f"record counts disagree: report {report.get('records')!r}, public {records}, "
            f"answers {len(answers.get('answers') or [])}"
        )
    checks = report.get("leak_checks")
    if not isinstance(checks, dict) or not checks or not all(v is True for v in checks.values()):
        problems.append(f"report.leak_checks are not all true: {checks!r}")
    oracle = report.get("blind_oracle_grade")
    if not isinstance(oracle, dict) or oracle.get("quality_pass") is not True:
        problems.append("report.blind_oracle_grade does not pass")
    return problems


def verify(
    public_path: Path,
    answers_path: Path,
    report_path: Path,
    *,
    raw_path: Path | None = None,
    redactions_path: Path = DEFAULT_REDACTIONS,
    progress: Progress | None = None,
) -> list[str]:
    """Every check; returns the problems found (empty when the triple verifies)."""
    progress = progress or Progress("verify", enabled=False)
    progress.step("load artifacts")
    corpus = load_public(public_path)
    answers_bytes = _read_bytes(answers_path)
    bundle.load_document(answers_path, expect_schema=bundle.ANSWERS_SCHEMA)  # type check, exit 2 if unusable
    answers = read_json_file(answers_path)
    report = read_json_file(report_path)
    if not isinstance(report, dict) or report.get("schema") != REPORT_SCHEMA:
        raise UnusableInput(f"{report_path}: not a report: expected an object with schema {REPORT_SCHEMA!r}")
    problems = reference_checks(
        corpus.sha256, len(corpus.document["records"]), answers, _sha256(answers_bytes), report
    )
    given = {"public": corpus.document, "answers": answers, "report": report}
    with tempfile.TemporaryDirectory(prefix="s8f-duck-verify-") as tmp:
        out = {name: Path(tmp) / f"{name}.json" for name in ("public", "answers", "report")}
        try:
            freeze_tables(
                corpus.tables, out["public"], out["answers"], out["report"], corpus.document["source"],
                progress=progress,
            )  # fmt: skip
        except LeakCheckFailed as exc:
            return problems + [f"re-derived leak checks fail: {', '.join(exc.failed)}"]
        derived = {name: read_json_file(path) for name, path in out.items()}
        # The digests were checked against the given bytes above; here contents are compared.
        derived["answers"]["corpus_sha256"] = answers.get("corpus_sha256")
        for key in ("corpus_sha256", "answers_sha256", "scrubbed_matches"):  # scrub matches need the raw text
            derived["report"][key] = report.get(key)
        if isinstance(report.get("blind_oracle_grade"), dict):
            derived["report"]["blind_oracle_grade"]["corpus_sha256"] = report["blind_oracle_grade"].get("corpus_sha256")
        for name in ("public", "answers", "report"):
            problems += differences(given[name], derived[name], name)
        for name, path in (("public", public_path), ("answers", answers_path), ("report", report_path)):
            if dumps(given[name]).encode() != _read_bytes(path):
                problems.append(f"{name}: {path} is not in the canonical byte layout (Go MarshalIndent)")
        if raw_path is not None:
            progress.step("re-freeze the raw dump")
            raw_out = {name: Path(tmp) / f"raw-{name}.json" for name in out}
            freeze(raw_path, raw_out["public"], raw_out["answers"], raw_out["report"], corpus.document["source"],
                   redactions_path=redactions_path, min_records=0)  # fmt: skip
            for name, path in (("public", public_path), ("answers", answers_path), ("report", report_path)):
                if raw_out[name].read_bytes() != _read_bytes(path):
                    fresh = read_json_file(raw_out[name])
                    found = differences(given[name], fresh, name) or [f"{name}: bytes differ from a fresh freeze"]
                    problems += [f"{p} (fresh freeze of {raw_path})" for p in found]
    progress.done()
    return problems


def verdict(problems: list[str]) -> None:
    """Raise a Verdict listing the first problems."""
    if problems:
        shown = "\n  ".join(problems[:MAX_SHOWN])
        more = f"\n  ... and {len(problems) - MAX_SHOWN} more" if len(problems) > MAX_SHOWN else ""
        raise Verdict(f"verification failed, {len(problems)} problem(s):\n  {shown}{more}")
