"""Plain `verify` catches every consistent forgery it can: the public corpus and the
report are re-derived and compared byte for byte (key order, number forms, JSON types),
the public text is checked against the redaction map, and --expect-sha256 pins the
public corpus to a published digest.

Each forgery edits a real frozen triple (the demo dump's) and then binds every digest to
the edited bytes, so that only the re-derivation can catch it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    REPO,
    S8F_ANSWERS,
    S8F_PUBLIC,
    S8F_PUBLIC_SHA256,
    S8F_RAW,
    S8F_REPORT,
    S8F_SOURCE,
    needs_s8f,
    run_cli,
)

from s8f_duck.reading.gojson import dumps

DEMO = REPO / "experiments" / "demo" / "gh-issues-demo.json"
NAMES = ("public", "answers", "report")
Docs = dict[str, Any]
Triple = dict[str, bytes]


def freeze_demo(out: Path, *extra: str | Path) -> Triple:
    paths = {name: out / f"{name}.json" for name in NAMES}
    result = run_cli(
        "freeze", DEMO, "--source", "demo", "--quiet",
        "--public", paths["public"], "--answers", paths["answers"], "--report", paths["report"], *extra,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return {name: path.read_bytes() for name, path in paths.items()}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Triple:
    return freeze_demo(tmp_path_factory.mktemp("demo"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def forge(
    base: Triple,
    out: Path,
    edit: Callable[[Docs], None] = lambda docs: None,
    **byte_edits: Callable[[bytes], bytes],
) -> tuple[Path, Path, Path]:
    """Decode a frozen triple, apply `edit` to its documents and then each byte edit
    (keyword: the artifact's name) to its bytes, and bind every digest to the result as
    a careful forger would: the public corpus's digest in the answer bundle and in the
    report (and its oracle grade), the answer bundle's digest in the report."""
    docs = {name: json.loads(data) for name, data in base.items()}
    edit(docs)
    keep = lambda name, data: byte_edits.get(name, lambda b: b)(data)  # noqa: E731
    public = keep("public", dumps(docs["public"]).encode())
    docs["answers"]["corpus_sha256"] = sha256(public)
    answers = keep("answers", dumps(docs["answers"]).encode())
    docs["report"]["corpus_sha256"] = sha256(public)
    docs["report"]["answers_sha256"] = sha256(answers)
    docs["report"]["blind_oracle_grade"]["corpus_sha256"] = sha256(public)
    report = keep("report", dumps(docs["report"]).encode())
    paths = tuple(out / f"{name}.json" for name in NAMES)
    for path, data in zip(paths, (public, answers, report)):
        path.write_bytes(data)
    return paths  # type: ignore[return-value]


def verify(paths: tuple[Path, Path, Path], *extra: str | Path) -> tuple[int, str]:
    public, answers, report = paths
    result = run_cli("verify", "--public", public, "--answers", answers, "--report", report, *extra)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout + result.stderr


def record(docs: Docs, number: int) -> dict[str, Any]:
    return next(r for r in docs["public"]["records"] if r["number"] == number)


def reorder(value: dict[str, Any], *first: str) -> dict[str, Any]:
    """The same object with the given keys moved to the front."""
    return {**{key: value[key] for key in first}, **value}


def set_in(name: str, path: str, value: Any) -> Callable[[Docs], None]:
    """An edit setting docs[name] at a dotted path to a value."""

    def edit(docs: Docs) -> None:
        *parents, last = path.split(".")
        target = docs[name]
        for key in parents:
            target = target[key]
        target[last] = value

    return edit


def reorder_in(name: str, path: str, *first: str) -> Callable[[Docs], None]:
    def edit(docs: Docs) -> None:
        if not path:
            docs[name] = reorder(docs[name], *first)
            return
        *parents, last = path.split(".")
        target = docs[name]
        for key in parents:
            target = target[key]
        target[last] = reorder(target[last], *first)

    return edit


def reorder_record(docs: Docs) -> None:
    records = docs["public"]["records"]
    at = records.index(record(docs, 5))
    records[at] = reorder(records[at], "title")


def sub(old: bytes, new: bytes) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        assert old in data
        return data.replace(old, new, 1)

    return edit


def leak_a_match(docs: Docs) -> None:
    rec = record(docs, 7)
    rec["body"] += "\nSeen on a Samsung tablet."
    rec["body_sha256"] = sha256(rec["body"].encode())


# name: (edit of the documents, byte edits, what verify must say)
FORGERIES: dict[str, tuple[Callable[[Docs], None], dict[str, Callable[[bytes], bytes]], str]] = {
    "report keys in another order": (
        reorder_in("report", "", "train_records"), {},
        "report: keys in another order: key 1 is 'train_records' in the file, 'schema' re-derived"
    ),
    "report leak checks in another order": (
        reorder_in("report", "leak_checks", "oracle_blind_run_exact"), {}, "report.leak_checks: keys in another order"
    ),
    "oracle grade keys in another order": (
        reorder_in("report", "blind_oracle_grade", "quality_pass"), {},
        "report.blind_oracle_grade: keys in another order",
    ),
    "public record keys in another order": (
        reorder_record, {},
        "public.records[issue-5]: keys in another order: key 1 is 'title' in the file, 'id' re-derived"
    ),
    "public header keys in another order": (
        reorder_in("public", "", "source"), {},
        "public: keys in another order: key 1 is 'source' in the file, 'schema' re-derived"
    ),
    "answer keys in another order": (
        lambda docs: docs["answers"]["answers"].__setitem__(0, reorder(docs["answers"]["answers"][0], "labels")), {},
        "answers.answers[issue-1]: keys in another order",
    ),
    "count written 64.0": (set_in("report", "records", 64.0), {}, "report.records: file has 64.0, re-derived 64"),
    "count written 6.4e1": (
        lambda docs: None, {"report": sub(b'"records": 64,', b'"records": 6.4e1,')},
        "report.records: file has 64.0, re-derived 64",
    ),
    "test count written 47.0": (
        set_in("report", "test_records", 47.0), {}, "report.test_records: file has 47.0, re-derived 47"
    ),
    "oracle test records written 47.0": (
        set_in("report", "blind_oracle_grade.test_records", 47.0), {},
        "report.blind_oracle_grade.test_records: file has 47.0, re-derived 47",
    ),
    "oracle false positives written false": (
        set_in("report", "blind_oracle_grade.false_positive_facts", False), {},
        "report.blind_oracle_grade.false_positive_facts: file has false, re-derived 0",
    ),
    "oracle aggregate errors written false": (
        set_in("report", "blind_oracle_grade.aggregate_errors", False), {},
        "report.blind_oracle_grade.aggregate_errors: file has false, re-derived 0",
    ),
    "oracle citation errors written false": (
        set_in("report", "blind_oracle_grade.citation_errors", False), {},
        "report.blind_oracle_grade.citation_errors: file has false, re-derived 0",
    ),
    "edge count written 8.0": (
        lambda docs: None, {"report": sub(b'"duplicate_edges": 8,', b'"duplicate_edges": 8.0,')},
        "report.duplicate_edges: file has 8.0, re-derived 8",
    ),
    "quality pass written 1": (
        set_in("report", "blind_oracle_grade.quality_pass", 1), {},
        "report.blind_oracle_grade does not pass",
    ),
    "escaped letter in the report": (
        lambda docs: None, {"report": sub(b'"schema": "fak-', b'"schema": "\\u0066ak-')},
        "report.json is not in the canonical byte layout",
    ),
    "public text holds a match of the redaction map": (
        leak_a_match, {}, "public.records[issue-7]: 1 match(es) of the redaction map",
    ),
}


@pytest.mark.parametrize("name", FORGERIES)
def test_consistent_forgery_fails_plain_verify(demo: Triple, tmp_path: Path, name: str) -> None:
    edit, byte_edits, message = FORGERIES[name]
    paths = forge(demo, tmp_path, edit, **byte_edits)
    assert any(path.read_bytes() != demo[n] for n, path in zip(NAMES, paths))
    code, out = verify(paths)
    assert code == 1, out
    assert "verification failed" in out
    assert message in out


@pytest.mark.parametrize(
    "edit, message",
    [
        (set_in("answers", "aggregates.state_counts.OPEN", 27.0), "aggregates.state_counts['OPEN'] must be an integer"),
        (lambda docs: docs["answers"]["answers"][0]["references"].__setitem__(0, 3.0),
         "answers[0] (id 'issue-1').references[0] must be an integer"),
    ],
)  # fmt: skip
def test_answer_number_written_as_a_fraction_is_unusable(
    demo: Triple, tmp_path: Path, edit: Callable[[Docs], None], message: str
) -> None:
    # Go refuses 27.0 for an integer field: the grader could not read such a bundle.
    code, out = verify(forge(demo, tmp_path, edit))
    assert code == 2, out
    assert message in out


def test_oracle_bound_to_another_corpus_fails(demo: Triple, tmp_path: Path) -> None:
    public, answers, report = forge(demo, tmp_path)
    doc = json.loads(report.read_bytes())
    doc["blind_oracle_grade"]["corpus_sha256"] = "0" * 64
    report.write_bytes(dumps(doc).encode())
    code, out = verify((public, answers, report))
    assert code == 1, out
    expected = f"report.blind_oracle_grade.corpus_sha256: file has '{'0' * 64}', re-derived '{sha256(demo['public'])}'"
    assert expected in out


def test_unforged_copy_verifies(demo: Triple, tmp_path: Path) -> None:
    paths = forge(demo, tmp_path)
    assert [p.read_bytes() for p in paths] == [demo[n] for n in NAMES]
    code, out = verify(paths)
    assert code == 0, out
    assert f"public corpus sha256 {sha256(demo['public'])}" in out
    assert "scrubbed_matches (3) is checked for its type and range only" in out


@pytest.mark.parametrize(
    "value, message",
    [
        ("3", 'file has "3", expected a non-negative integer'),
        (3.0, "file has 3.0, expected a non-negative integer"),
        (True, "file has true, expected a non-negative integer"),
        (None, "file has null, expected a non-negative integer"),
        (-1, "file has -1, expected a non-negative integer"),
        ([3], "file has [3], expected a non-negative integer"),
        ({"n": 3}, 'file has {"n": 3}, expected a non-negative integer'),
    ],
)
def test_scrubbed_matches_must_be_a_non_negative_integer(
    demo: Triple, tmp_path: Path, value: Any, message: str
) -> None:
    code, out = verify(forge(demo, tmp_path, set_in("report", "scrubbed_matches", value)))
    assert code == 1, out
    assert f"report.scrubbed_matches: {message}" in out
    assert "cannot be re-derived without --raw" in out


def test_scrubbed_matches_without_a_scrubbed_record_fails(tmp_path: Path) -> None:
    # Every match leaves the mark in its record: matches but no scrubbed record is a forgery.
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    frozen = freeze_demo(tmp_path, "--redactions", empty)  # nothing scrubbed: 0 records, 0 matches
    (tmp_path / "forged").mkdir()
    paths = forge(frozen, tmp_path / "forged", set_in("report", "scrubbed_matches", 2))
    code, out = verify(paths, "--redactions", empty)
    assert code == 1, out
    assert "report.scrubbed_matches: file has 2, but no record holds the mark [redacted:public-corpus]" in out


def test_any_scrubbed_matches_at_least_zero_verifies(demo: Triple, tmp_path: Path) -> None:
    # Not re-derivable from the public corpus: any count of matches in the raw text fits it
    # (a raw text may hold the mark already, so even fewer matches than scrubbed records).
    for value in (0, 1, 1000):
        code, out = verify(forge(demo, tmp_path, set_in("report", "scrubbed_matches", value)))
        assert code == 0, out


def test_freeze_with_an_empty_map_fails_plain_verify(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    paths = tuple(tmp_path / f"{name}.json" for name in NAMES)
    freeze_demo(tmp_path, "--redactions", empty)
    code, out = verify(paths)  # type: ignore[arg-type]
    assert code == 1, out
    default = REPO / "s8f_duck" / "data" / "redactions.json"
    assert f"public.records[issue-38]: 2 match(es) of the redaction map {default} left in its title or body" in out
    assert "public.records[issue-41]: 1 match(es) of the redaction map" in out
    code, out = verify(paths, "--redactions", empty)  # type: ignore[arg-type]
    assert code == 0, out


def test_verify_uses_the_given_redaction_map(demo: Triple, tmp_path: Path) -> None:
    paths = forge(demo, tmp_path)
    widget = tmp_path / "map.json"
    widget.write_text('["samsung", "registry"]')
    code, out = verify(paths, "--redactions", widget)
    assert code == 1, out
    assert f"public.records[issue-1]: 2 match(es) of the redaction map {widget} left in its title or body" in out
    widget.write_text("[7]")
    code, out = verify(paths, "--redactions", widget)
    assert code == 2 and "expected a JSON array of non-empty pattern strings" in out


def test_expect_sha256_pins_the_public_corpus(demo: Triple, tmp_path: Path) -> None:
    paths = forge(demo, tmp_path)
    digest = sha256(demo["public"])
    code, out = verify(paths, "--expect-sha256", digest.upper())
    assert code == 0, out
    assert f"public corpus sha256 {digest} (the expected one)" in out
    other = sha256(b"published elsewhere")
    code, out = verify(paths, "--expect-sha256", other)
    assert code == 1, out
    assert f"public: {paths[0]} hashes to {digest}, not the expected {other} (--expect-sha256)" in out


def test_expect_sha256_catches_another_source(demo: Triple, tmp_path: Path) -> None:
    # The source string re-derives from nothing: the published digest is its only anchor.
    paths = forge(demo, tmp_path, set_in("public", "source", "github.com/someone/else"))
    assert verify(paths)[0] == 0
    code, out = verify(paths, "--expect-sha256", sha256(demo["public"]))
    assert code == 1, out
    assert "not the expected" in out


@pytest.mark.parametrize("digest", ["abc", "g" * 64, sha256(b"") + "0"])
def test_expect_sha256_must_be_a_digest(demo: Triple, tmp_path: Path, digest: str) -> None:
    code, out = verify(forge(demo, tmp_path), "--expect-sha256", digest)
    assert code == 2, out
    assert f"--expect-sha256: {digest!r} is not a SHA-256 digest (64 hexadecimal digits)" in out


@pytest.mark.parametrize(
    "given, derived, message",
    [
        ({"a": 1, "b": [2]}, {"a": 1, "b": [2.0]}, "x.b[0]: file has 2, re-derived 2.0"),
        ({"a": True}, {"a": 1}, "x.a: file has true, re-derived 1"),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, "x: keys in another order: key 1 is 'b' in the file, 'a' re-derived"),
        ([{"id": "i", "n": 0.0}], [{"id": "i", "n": 0}], "x[i].n: file has 0.0, re-derived 0"),
    ],
)
def test_differences_tell_json_types_and_key_order_apart(given: Any, derived: Any, message: str) -> None:
    from s8f_duck.corpus.verify import differences

    (found,) = differences(given, derived, "x")
    assert found.startswith(message)
    assert differences(derived, derived, "x") == []


@pytest.mark.parametrize(
    "given, derived, message",
    [
        (b'{\n  "a": 1\n}\n', b'{\n  "a": 1.0\n}\n', "x: line 2 differs from the re-derived file: "
         "file has '  \"a\": 1', re-derived '  \"a\": 1.0'"),
        (b"[\n" + b"1,\n" * 70000 + b"2\n]\n", b"[\n" + b"1,\n" * 70000 + b"3\n]\n", "x: line 70002 differs"),
        (b"ab", b"abc", "x: line 1 differs from the re-derived file: file has 'ab', re-derived 'abc'"),
    ],
)  # fmt: skip
def test_first_difference_names_the_line(given: bytes, derived: bytes, message: str) -> None:
    from s8f_duck.corpus.verify import first_difference

    assert first_difference("x", given, derived).startswith(message)


@needs_s8f
def test_own_s8f_freeze_verifies_with_fewer_matches_than_scrubbed_records(tmp_path: Path) -> None:
    # The S8f raw text already holds the mark: 8 scrubbed records, 0 new matches. A bound
    # scrubbed_matches >= scrubbed_records would refuse this genuine triple.
    paths = tuple(tmp_path / f"{name}.json" for name in NAMES)
    result = run_cli("freeze", S8F_RAW, "--source", S8F_SOURCE, "--quiet", "--public", paths[0],
                     "--answers", paths[1], "--report", paths[2])  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(paths[2].read_bytes())
    assert (report["scrubbed_records"], report["scrubbed_matches"]) == (8, 0)
    code, out = verify(paths, "--expect-sha256", S8F_PUBLIC_SHA256)  # type: ignore[arg-type]
    assert code == 0, out
    assert f"public corpus sha256 {S8F_PUBLIC_SHA256} (the expected one)" in out


@needs_s8f
def test_published_s8f_triple_verifies_pinned(tmp_path: Path) -> None:
    code, out = verify((S8F_PUBLIC, S8F_ANSWERS, S8F_REPORT), "--expect-sha256", S8F_PUBLIC_SHA256)
    assert code == 0, out
    assert "report.scrubbed_matches (30) is checked for its type and range only" in out


def test_map_matching_its_own_mark_leaves_matches(tmp_path: Path) -> None:
    # "corpus" matches inside the mark that rule 1 leaves: the freeze's text still holds it.
    rules = tmp_path / "map.json"
    rules.write_text('["samsung", "corpus"]')
    paths = tuple(tmp_path / f"{name}.json" for name in NAMES)
    freeze_demo(tmp_path, "--redactions", rules)
    assert b"[redacted:public-[redacted:public-corpus]]" in paths[0].read_bytes()
    code, out = verify(paths, "--redactions", rules)  # type: ignore[arg-type]
    assert code == 1, out
    assert f"public.records[issue-38]: 2 match(es) of the redaction map {rules} left in its title or body" in out


def test_help_describes_the_checks() -> None:
    text = " ".join(run_cli("verify", "--help").stdout.split())
    for phrase in ("byte for byte", "key order, number forms and JSON types", "no match of the redaction map",
                   "--expect-sha256", "only its type and range are checked"):  # fmt: skip
        assert phrase in text, phrase
