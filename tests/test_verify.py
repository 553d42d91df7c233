"""docs/format.md §9: verify passes the published triple and catches consistent forgeries."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_RAW, S8F_REPORT, needs_s8f, run_cli

from s8f_duck.reading.gojson import dumps

pytestmark = needs_s8f
Docs = dict[str, dict[str, Any]]


def verify(public: Path, answers: Path, report: Path, *extra: str | Path) -> tuple[int, str]:
    result = run_cli("verify", "--public", public, "--answers", answers, "--report", report, *extra)
    return result.returncode, result.stdout + result.stderr


def test_published_triple_verifies() -> None:
    code, out = verify(S8F_PUBLIC, S8F_ANSWERS, S8F_REPORT)
    assert code == 0, out
    assert "verified" in out


def test_raw_refreeze_differs_only_in_scrub_matches() -> None:
    # The raw dump was rebuilt from already-scrubbed text: a fresh freeze finds 0 matches.
    code, out = verify(S8F_PUBLIC, S8F_ANSWERS, S8F_REPORT, "--raw", S8F_RAW)
    assert code == 1
    assert "1 problem(s)" in out
    assert "report.scrubbed_matches: file has 30, re-derived 0 (fresh freeze of" in out


def forge(tmp_path: Path, edit: Callable[[Docs], None]) -> tuple[Path, Path, Path]:
    """Apply an edit, then update every digest consistently, as a careful forger would."""
    docs: Docs = {name: json.loads(path.read_bytes()) for name, path in
                  (("public", S8F_PUBLIC), ("answers", S8F_ANSWERS), ("report", S8F_REPORT))}  # fmt: skip
    edit(docs)
    public_bytes = dumps(docs["public"]).encode()
    public_sha = hashlib.sha256(public_bytes).hexdigest()
    docs["answers"]["corpus_sha256"] = public_sha
    answers_bytes = dumps(docs["answers"]).encode()
    docs["report"].update(corpus_sha256=public_sha, answers_sha256=hashlib.sha256(answers_bytes).hexdigest())
    docs["report"]["blind_oracle_grade"]["corpus_sha256"] = public_sha
    paths = tuple(tmp_path / f"{name}.json" for name in ("public", "answers", "report"))
    for path, data in zip(paths, (public_bytes, answers_bytes, dumps(docs["report"]).encode())):
        path.write_bytes(data)
    return paths  # type: ignore[return-value]


def answer(docs: Docs, ident: str) -> dict[str, Any]:
    return next(a for a in docs["answers"]["answers"] if a["id"] == ident)


def record(docs: Docs, ident: str) -> dict[str, Any]:
    return next(r for r in docs["public"]["records"] if r["id"] == ident)


def edit_answer(docs: Docs) -> None:
    answer(docs, "issue-5105")["references"].append(5106)


def move_split(docs: Docs) -> None:
    record(docs, "issue-5105")["split"] = "train"
    answer(docs, "issue-5105")["split"] = "train"
    docs["report"]["train_records"] += 1
    docs["report"]["test_records"] -= 1
    docs["report"]["blind_oracle_grade"].update(test_records=679, exact_records=679)


def edit_body(docs: Docs) -> None:
    rec = record(docs, "issue-5105")
    rec["body"] += "\nThis conflicts with #5107."
    rec["body_sha256"] = hashlib.sha256(rec["body"].encode()).hexdigest()


def change_count(docs: Docs) -> None:
    docs["report"]["reference_edges"] += 1


def change_aggregate(docs: Docs) -> None:
    docs["answers"]["aggregates"]["label_counts"]["class:dev"] += 1


def swap_top10(docs: Docs) -> None:
    ids = docs["answers"]["aggregates"]["newest_issue_ids"]
    ids[0], ids[1] = ids[1], ids[0]


def edit_title_keep_hash(docs: Docs) -> None:
    record(docs, "issue-5106")["title"] += " (edited)"


def drop_leak_check(docs: Docs) -> None:
    docs["report"]["leak_checks"]["oracle_blind_run_exact"] = False


def relabel(docs: Docs) -> None:
    record(docs, "issue-5105")["labels"] = ["class:dev", "security"]


FORGERIES: dict[str, tuple[Callable[[Docs], None], str]] = {
    "answer edited": (edit_answer, "answers.answers[issue-5105].references: file has [4968, 5106], re-derived [4968]"),
    "record moved between splits": (move_split, "public.records[issue-5105].split: file has 'train', re-derived 'test'"),
    "body edited, hashes recomputed": (edit_body, "answers.answers[issue-5105].references"),
    "report count changed": (change_count, "report.reference_edges: file has 2038, re-derived 2037"),
    "aggregate changed": (change_aggregate, "answers.aggregates.label_counts.class:dev"),
    "top-10 order changed": (swap_top10, "answers.aggregates.newest_issue_ids"),
    "title edited, old hash kept": (edit_title_keep_hash, "public.records[issue-5106].title_sha256"),
    "leak check set false": (drop_leak_check, "report.leak_checks are not all true"),
    "labels edited in public only": (relabel, "answers.answers[issue-5105].labels"),
}


@pytest.mark.parametrize("name", FORGERIES)
def test_consistent_forgery_is_caught(tmp_path: Path, name: str) -> None:
    edit, message = FORGERIES[name]
    code, out = verify(*forge(tmp_path, edit))
    assert code == 1, out
    assert "verification failed" in out
    assert message in out


def test_unforged_copy_verifies(tmp_path: Path) -> None:
    code, out = verify(*forge(tmp_path, lambda docs: None))
    assert code == 0, out


def test_edit_without_new_digests_breaks_the_binding(tmp_path: Path) -> None:
    public = tmp_path / "public.json"
    public.write_bytes(S8F_PUBLIC.read_bytes().replace(b'"split": "test"', b'"split": "tune"', 1))
    code, out = verify(public, S8F_ANSWERS, S8F_REPORT)
    assert code == 1
    assert "answers.corpus_sha256 is '0740c911" in out and "report.corpus_sha256" in out


def test_non_canonical_layout_is_caught(tmp_path: Path) -> None:
    public, answers, report = forge(tmp_path, lambda docs: None)
    compact = json.dumps(json.loads(public.read_bytes()), ensure_ascii=False).encode()
    public.write_bytes(compact)
    sha = hashlib.sha256(compact).hexdigest()
    answers_doc = json.loads(answers.read_bytes())
    answers_doc["corpus_sha256"] = sha
    answers.write_bytes(dumps(answers_doc).encode())
    report_doc = json.loads(report.read_bytes())
    report_doc.update(corpus_sha256=sha, answers_sha256=hashlib.sha256(answers.read_bytes()).hexdigest())
    report_doc["blind_oracle_grade"]["corpus_sha256"] = sha
    report.write_bytes(dumps(report_doc).encode())
    code, out = verify(public, answers, report)
    assert code == 1
    assert "public.json is not in the canonical byte layout" in out


@pytest.mark.parametrize(
    "which, content, message",
    [
        ("public", b"{", "public.json: not JSON"),
        ("public", b'{"schema": "x"}', "field 'schema' is 'x'"),
        ("answers", b"[]", "answers.json: the document must be a JSON object"),
        ("report", b'{"schema": 1}', "report.json: not a report"),
    ],
)
def test_unusable_artifact_exits_2(tmp_path: Path, which: str, content: bytes, message: str) -> None:
    paths = dict(zip(("public", "answers", "report"), forge(tmp_path, lambda docs: None)))
    paths[which].write_bytes(content)
    code, out = verify(paths["public"], paths["answers"], paths["report"])
    assert code == 2
    assert message in out
