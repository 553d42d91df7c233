"""The rules of docs/format.md §2-§6, end to end: small dumps frozen by the real CLI, exact results.

Each group of cases shares one frozen dump (a module-scoped fixture) to keep the suite fast.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import answer, freeze_dump, issue, record

Artifacts = dict[str, Any]
MARK = "[redacted:public-corpus]"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_of(key: int) -> str:
    """docs/format.md §4: the split of a component whose smallest number is `key`."""
    bucket = hashlib.sha256(str(key).encode("ascii")).digest()[0] % 10
    return "train" if bucket < 2 else "tune" if bucket < 4 else "test"


def numbered(bodies: list[str]) -> list[dict[str, Any]]:
    """Issues 1..n, one per body, with distinct default titles."""
    return [issue(n, body=body) for n, body in enumerate(bodies, start=1)]


# --- §3 references ---------------------------------------------------------------------

REFERENCE_CASES: list[tuple[str, str, list[int]]] = [
    # (title, body, references)
    ("Issue 1", "é#105", [105]),
    ("Issue 2", "x#106", []),
    ("Issue 3", "#108é", [108]),
    ("Issue 4", "#109_", []),
    ("Issue 5", "#12345678", []),
    ("Issue 6", "#00110", [110]),
    ("Issue 7", "##111", [111]),
    ("Issue 8", "#112#113", [112]),
    ("Issue 9", "#0 and #000 and #0000000", []),
    ("Issue 10", "this is #10 itself", [10]),
    ("Issue 11", "outside: #9999999, #1234567", [1234567, 9999999]),
    ("Issue 12", "#7, #3, then #7 again", [3, 7]),
    ("Fix #42 crash", "", [42]),
    ("#43 at the very start", "no refs here", [43]),
    ("Tracking #5", "x", [5]),
    ("Tracker #6", "0 more", [6]),
    ("Issue 17", "(#21) [#22] a-#23 a.#24 a/#25\t#26", [21, 22, 23, 24, 25, 26]),
    ("Issue 18", "a#27 9#28 _#29 A#30", []),
    ("Issue 19", "#31x #32a #33.", [33]),
    ("Issue 20", "e\u0301#34 \u00e9#35 \u0131#36", [34, 35, 36]),  # a combining mark is no word character
]


@pytest.fixture(scope="module")
def references_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    records = [issue(n, title=title, body=body) for n, (title, body, _) in enumerate(REFERENCE_CASES, start=1)]
    return freeze_dump(tmp_path_factory.mktemp("references"), records)


@pytest.mark.parametrize(("number", "case"), list(enumerate(REFERENCE_CASES, start=1)), ids=repr)
def test_references(references_dump: Artifacts, number: int, case: tuple[str, str, list[int]]) -> None:
    assert answer(references_dump, number)["references"] == case[2]


def test_reference_edges_counted_in_report(references_dump: Artifacts) -> None:
    assert references_dump["report"]["reference_edges"] == sum(len(refs) for _, _, refs in REFERENCE_CASES)


# --- §3 duplicate_targets --------------------------------------------------------------

DUPLICATE_CASES: list[tuple[str, str, list[int]]] = [
    # (title, body, duplicate_targets)
    ("Issue 1", "Duplicate of #5", [5]),
    ("Issue 2", "duplicates #5", [5]),
    ("Issue 3", "Duplicated #5", [5]),
    ("Issue 4", "superseded by #5", [5]),
    ("Issue 5", "Supersedes by #5", [5]),
    ("Issue 6", "Duplicate\u00a0of #5", []),
    ("Issue 7", "duplicateſ #5", [5]),
    ("Issue 8", "xduplicate of #5", []),
    ("Issue 9", "DUPLICATE OF #5", [5]),
    ("Issue 10", "duplicate\tof\n#5", [5]),
    ("Issue 11", "duplicate of\x0b#5", []),
    ("Issue 12", "duplicate of #5x", []),
    ("Duplicate of #7", "", [7]),
    ("Issue 14", "duplicate of #9; superseded by #4; duplicate of #9", [4, 9]),
    ("Issue 15", "supersede by #5", [5]),
    ("Issue 16", "duplicate #5", [5]),
    ("Issue 17", "superseded #5", []),
    ("Issue 18", "Duplicate of issue #5", []),
    ("Issue 19", "duplicate of  #5", [5]),
    ("Issue 20", "superſeded by #5", [5]),
    ("Issue 21", "SUPERSEDED BY #5", [5]),
    ("duplicate of", "#5 and more", [5]),
    ("Issue 23", "Dupİcate of #5", []),
    ("Issue 24", "ſuperseded by #5", []),  # ſ is not an ASCII word character, so no \b before it
]


@pytest.fixture(scope="module")
def duplicates_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    records = [issue(n, title=title, body=body) for n, (title, body, _) in enumerate(DUPLICATE_CASES, start=1)]
    return freeze_dump(tmp_path_factory.mktemp("duplicates"), records)


@pytest.mark.parametrize(("number", "case"), list(enumerate(DUPLICATE_CASES, start=1)), ids=repr)
def test_duplicate_targets(duplicates_dump: Artifacts, number: int, case: tuple[str, str, list[int]]) -> None:
    assert answer(duplicates_dump, number)["duplicate_targets"] == case[2]


def test_duplicate_edges_counted_in_report(duplicates_dump: Artifacts) -> None:
    assert duplicates_dump["report"]["duplicate_edges"] == sum(len(dups) for _, _, dups in DUPLICATE_CASES)


# --- §3 scope_contradictions -----------------------------------------------------------

CONTRADICTION_CASES: list[tuple[str, str, list[str]]] = [
    # (title, body, scope_contradictions)
    ("Issue 1", "CONFLİCT here", ["conflict"]),
    ("a contradiction in the title", "nothing to see", []),
    ("Issue 3", "Mismatch, DISAGREE, conflicting, contradicts, conflict again", [
        "conflict", "contradict", "disagree", "mismatch",
    ]),  # fmt: skip
    ("Issue 4", "an inconsistency", []),
    ("Issue 5", "INCONSISTENT", ["inconsistent"]),
    ("Issue 6", "con-flict, mis match", []),
    ("Issue 7", "miſmatch", []),
    ("Issue 8", "", []),
    ("Issue 9", "İnconsistent; dİsagree", ["disagree", "inconsistent"]),
    ("Issue 10", "MİSMATCH", ["mismatch"]),
]


@pytest.fixture(scope="module")
def contradictions_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    records = [issue(n, title=title, body=body) for n, (title, body, _) in enumerate(CONTRADICTION_CASES, start=1)]
    return freeze_dump(tmp_path_factory.mktemp("contradictions"), records)


@pytest.mark.parametrize(("number", "case"), list(enumerate(CONTRADICTION_CASES, start=1)), ids=repr)
def test_scope_contradictions(contradictions_dump: Artifacts, number: int, case: tuple[str, str, list[str]]) -> None:
    assert answer(contradictions_dump, number)["scope_contradictions"] == case[2]


def test_scope_contradictions_counted_in_report(contradictions_dump: Artifacts) -> None:
    assert contradictions_dump["report"]["scope_contradictions"] == sum(len(c) for _, _, c in CONTRADICTION_CASES)


# --- §3 state and labels ---------------------------------------------------------------


@pytest.fixture(scope="module")
def state_labels_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    null_labels = issue(3)
    null_labels["labels"] = None
    records = [
        issue(1, state="open"),
        issue(2, state="closed", labels=["b", "", "a", "Ä", "Z", "a"], closed="2026-01-02T00:00:00Z"),
        null_labels,
        issue(4, labels=[""]),
        issue(5, state="Closed", labels=["only"], closed="2026-01-02T00:00:00Z"),
    ]
    return freeze_dump(tmp_path_factory.mktemp("state_labels"), records)


@pytest.mark.parametrize(
    ("number", "source_state", "state"),
    [(1, "open", "OPEN"), (2, "closed", "CLOSED"), (3, "OPEN", "OPEN"), (5, "Closed", "CLOSED")],
)
def test_state_upper_cased_in_public_and_answers(
    state_labels_dump: Artifacts, number: int, source_state: str, state: str
) -> None:
    """Go's strings.ToUpper of the source state, in the public corpus too (the contract
    changed here: the public corpus used to keep `source_state`)."""
    assert record(state_labels_dump, number)["state"] == state
    assert answer(state_labels_dump, number)["state"] == state


def test_labels_sorted_by_bytes_empty_dropped_duplicates_kept(state_labels_dump: Artifacts) -> None:
    assert answer(state_labels_dump, 2)["labels"] == ["Z", "a", "a", "b", "Ä"]
    assert sorted(record(state_labels_dump, 2)["labels"], key=str.encode) == ["Z", "a", "a", "b", "Ä"]
    assert answer(state_labels_dump, 5)["labels"] == record(state_labels_dump, 5)["labels"] == ["only"]


@pytest.mark.parametrize("number", [1, 3, 4], ids=["labels []", "labels null", 'labels [{"name": ""}]'])
def test_no_labels_is_null_in_public_and_empty_in_answers(state_labels_dump: Artifacts, number: int) -> None:
    assert record(state_labels_dump, number)["labels"] is None
    assert answer(state_labels_dump, number)["labels"] == []


def test_report_state_counts(state_labels_dump: Artifacts) -> None:
    report = state_labels_dump["report"]
    assert (report["open_records"], report["closed_records"]) == (3, 2)


# --- §4 splits -------------------------------------------------------------------------

# number -> (title, body); every other title and body is unique and non-empty.
SPLIT_RECORDS: dict[int, tuple[str, str]] = {
    6: ("Same title", "b6"),  # same exact title: 6 (train) and 8 (test)
    8: ("Same title", "b8"),
    9: ("same title", "b9"),  # differs in case: not linked
    2: ("Issue 2", "Same body"),  # same exact body: 2 (tune), 10, 30 (test)
    10: ("Issue 10", "Same body"),
    30: ("Issue 30", "Same body"),
    7: ("Issue 7", ""),  # all empty bodies: 7 (train), 11, 12 (test)
    11: ("Issue 11", ""),
    12: ("Issue 12", ""),
    13: ("Issue 13", "see #16"),  # smaller references larger: 13 (tune), 16 (test)
    16: ("Issue 16", "b16"),
    21: ("Issue 21", "b21"),  # larger references smaller: 21 (train) <- 24 (test)
    24: ("Issue 24", "see #21"),
    22: ("Issue 22", "blocked by #26"),  # transitively: 22 (train) -> 26 -> 28 (test)
    26: ("Issue 26", "see #28"),
    28: ("Issue 28", "b28"),
    23: ("Follow-up to #31", "b23"),  # a reference in the title: 23 (tune), 31 (test)
    31: ("Issue 31", "b31"),
    14: ("Mixed", "m14"),  # title then body: 14 (tune) = 33 (title) = 34 (body of 33)
    33: ("Mixed", "m33"),
    34: ("Other", "m33"),
    39: ("Issue 39", "x#40"),  # not a reference (§3): 39 (train) and 40 (tune) stay apart
    40: ("Issue 40", "b40"),
    32: ("Issue 32", "see #999 and #32"),  # outside the corpus and self: alone
    1: ("Issue 1", "b1"),
}
SPLIT_COMPONENT_KEY: dict[int, int] = {
    6: 6, 8: 6, 9: 9,
    2: 2, 10: 2, 30: 2,
    7: 7, 11: 7, 12: 7,
    13: 13, 16: 13,
    21: 21, 24: 21,
    22: 22, 26: 22, 28: 22,
    23: 23, 31: 23,
    14: 14, 33: 14, 34: 14,
    39: 39, 40: 40,
    32: 32, 1: 1,
}  # fmt: skip


def split_records() -> list[dict[str, Any]]:
    return [issue(n, title=title, body=body) for n, (title, body) in sorted(SPLIT_RECORDS.items())]


@pytest.fixture(scope="module")
def splits_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    return freeze_dump(tmp_path_factory.mktemp("splits"), split_records())


def test_split_cases_are_discriminating() -> None:
    """Every multi-member component has a member whose own bucket differs from its key's."""
    members: dict[int, list[int]] = {}
    for number, key in SPLIT_COMPONENT_KEY.items():
        members.setdefault(key, []).append(number)
    for key, numbers in members.items():
        if len(numbers) > 1:
            assert any(split_of(n) != split_of(key) for n in numbers), key
    assert split_of(9) != split_of(6) and split_of(40) != split_of(39)


@pytest.mark.parametrize("number", sorted(SPLIT_RECORDS))
def test_split_is_that_of_the_smallest_number_in_the_component(splits_dump: Artifacts, number: int) -> None:
    expected = split_of(SPLIT_COMPONENT_KEY[number])
    assert record(splits_dump, number)["split"] == expected
    assert answer(splits_dump, number)["split"] == expected


def test_split_counts_in_report(splits_dump: Artifacts) -> None:
    report = splits_dump["report"]
    counts = {s: sum(split_of(k) == s for k in SPLIT_COMPONENT_KEY.values()) for s in ("train", "tune", "test")}
    assert (report["train_records"], report["tune_records"], report["test_records"]) == (
        counts["train"], counts["tune"], counts["test"],
    )  # fmt: skip


def test_input_order_does_not_matter(splits_dump: Artifacts, tmp_path: Path) -> None:
    shuffled = split_records()
    random.Random(8).shuffle(shuffled)
    assert [r["number"] for r in shuffled] != sorted(SPLIT_RECORDS)
    again = freeze_dump(tmp_path, shuffled)
    assert again["public_bytes"] == splits_dump["public_bytes"]
    assert again["answers_bytes"] == splits_dump["answers_bytes"]
    assert [r["number"] for r in again["public"]["records"]] == sorted(SPLIT_RECORDS)


# --- §2 scrub --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def default_scrub_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    records = [
        issue(1, title="Samsung phone", body="SAMSUNG and samsung"),
        issue(2, body="node-agent-netra on dgx12"),
        issue(3, body="lab-dgx7 lab_dgx7 Lab DGX3"),
        issue(4, body="dgx12x adgx1"),
        issue(5, body="Samsung#5"),
    ]
    return freeze_dump(tmp_path_factory.mktemp("scrub"), records)


@pytest.mark.parametrize(
    ("number", "title", "body"),
    [
        (1, f"{MARK} phone", f"{MARK} and {MARK}"),
        (2, "Issue 2", f"{MARK} on {MARK}"),
        (3, "Issue 3", f"{MARK} {MARK} {MARK}"),
        (4, "Issue 4", "dgx12x adgx1"),
        (5, "Issue 5", f"{MARK}#5"),
    ],
)
def test_default_redaction_map(default_scrub_dump: Artifacts, number: int, title: str, body: str) -> None:
    public = record(default_scrub_dump, number)
    assert (public["title"], public["body"]) == (title, body)
    assert (public["title_sha256"], public["body_sha256"]) == (sha256(title), sha256(body))


def test_default_scrub_counts(default_scrub_dump: Artifacts) -> None:
    report = default_scrub_dump["report"]
    assert (report["scrubbed_matches"], report["scrubbed_records"]) == (9, 4)


def test_a_mark_in_the_source_counts_as_scrubbed(tmp_path: Path) -> None:
    # scrubbed_records counts the public texts holding the mark, also one that held it
    # before the redaction map (which no rule matches, so the scrub's first scan would not keep it)
    records = [issue(1, body=f"quoted {MARK} here"), issue(2, title=f"{MARK}"), issue(3, body="Samsung"), issue(4)]
    report = freeze_dump(tmp_path, records)["report"]
    assert (report["scrubbed_matches"], report["scrubbed_records"]) == (1, 3)


def test_facts_are_derived_from_scrubbed_text(default_scrub_dump: Artifacts) -> None:
    # raw "Samsung#5" has no reference (g before #); scrubbed "...]#5" has one
    assert answer(default_scrub_dump, 5)["references"] == [5]


@pytest.mark.parametrize(
    ("rules", "title", "body", "matches"),
    [
        (["ab", r"\[redacted"], f"Samsung {MARK}:public-corpus]", f"x{MARK}:public-corpus]y", 4),
        ([r"\[redacted", "ab"], f"Samsung {MARK}", f"x{MARK}y", 2),
    ],
)
def test_custom_redaction_map_replaces_default_and_applies_in_order(
    tmp_path: Path, rules: list[str], title: str, body: str, matches: int
) -> None:
    redactions = tmp_path / "redactions.json"
    redactions.write_text(json.dumps(rules), encoding="utf-8")
    records = [issue(1, title="Samsung AB", body="xaby"), issue(2, body="dgx1 node-agent-netra")]
    frozen = freeze_dump(tmp_path, records, "--redactions", str(redactions))
    assert (record(frozen, 1)["title"], record(frozen, 1)["body"]) == (title, body)
    assert (record(frozen, 2)["title"], record(frozen, 2)["body"]) == ("Issue 2", "dgx1 node-agent-netra")
    assert (record(frozen, 1)["title_sha256"], record(frozen, 1)["body_sha256"]) == (sha256(title), sha256(body))
    assert (frozen["report"]["scrubbed_matches"], frozen["report"]["scrubbed_records"]) == (matches, 1)


def test_scrub_folds_case_beyond_ascii(tmp_path: Path) -> None:
    # (?i) in RE2 also matches ſ (U+017F) for s and the Kelvin sign (U+212A) for k; the
    # first scan looks for ASCII case classes and must still keep these texts
    redactions = tmp_path / "redactions.json"
    redactions.write_text(json.dumps(["samsung", "kdgx"]), encoding="utf-8")
    records = [issue(1, title="ſAMſUNG", body="x \u212adgx y"), issue(2, body="samsun kdg")]
    frozen = freeze_dump(tmp_path, records, "--redactions", str(redactions))
    assert (record(frozen, 1)["title"], record(frozen, 1)["body"]) == (MARK, f"x {MARK} y")
    assert record(frozen, 2)["body"] == "samsun kdg"


def test_empty_redaction_map_changes_nothing(tmp_path: Path) -> None:
    redactions = tmp_path / "redactions.json"
    redactions.write_text("[]", encoding="utf-8")
    frozen = freeze_dump(tmp_path, [issue(1, title="Samsung", body="dgx1")], "--redactions", str(redactions))
    assert (record(frozen, 1)["title"], record(frozen, 1)["body"]) == ("Samsung", "dgx1")
    assert (frozen["report"]["scrubbed_matches"], frozen["report"]["scrubbed_records"]) == (0, 0)


# --- §5 aggregates ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def aggregates_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    records = [
        # created instant (UTC)                       updated instant (UTC)
        issue(1, state="open", labels=["bug", "a"],
              created="2026-01-01T10:00:00+05:00",  # 05:00
              updated="2026-02-01T00:00:00-03:00"),  # 03:00, tie with 2
        issue(2, state="CLOSED", labels=["bug"],
              created="2026-01-01T06:00:00Z",  # 06:00, tie with 5
              updated="2026-02-01T04:00:00+01:00"),  # 03:00
        issue(3, state="CLOSED", labels=["Ä", "bug"],
              created="2026-01-01T05:30:00-01:00",  # 06:30, newest
              updated="2026-02-01T02:59:59.999999999Z"),
        issue(4, state="CLOSED", labels=["", "Z"],
              created="2026-01-01T06:00:00.5Z",
              updated="2026-02-01T03:00:00.000000001Z"),
        issue(5, state="CLOSED", labels=["a", "a"],
              created="2026-01-01T07:00:00+01:00",  # 06:00
              updated="2026-01-31T23:00:00-05:00"),  # 2026-02-01 04:00, most recent
        *(issue(n, created=f"2025-12-{10 + n}T00:00:00Z") for n in range(6, 13)),  # 6 and 7 oldest
    ]  # fmt: skip
    return freeze_dump(tmp_path_factory.mktemp("aggregates"), records)


def test_state_counts(aggregates_dump: Artifacts) -> None:
    counts = aggregates_dump["answers"]["aggregates"]["state_counts"]
    assert list(counts.items()) == [("CLOSED", 4), ("OPEN", 8)]


def test_label_counts(aggregates_dump: Artifacts) -> None:
    counts = aggregates_dump["answers"]["aggregates"]["label_counts"]
    assert list(counts.items()) == [("Z", 1), ("a", 3), ("bug", 3), ("Ä", 1)]


# Ties land where Go's sort.Slice leaves them (the contract changed here: they used to be
# broken by number, descending). Of 12 records its pdqsort is an insertion sort, which is
# stable: tied records keep the number order the reference sorts from.
def test_newest_issue_ids_by_instant_ties_as_go_sorts_them(aggregates_dump: Artifacts) -> None:
    ids = aggregates_dump["answers"]["aggregates"]["newest_issue_ids"]
    assert ids == [f"issue-{n}" for n in (3, 4, 2, 5, 1, 12, 11, 10, 9, 8)]


def test_most_recently_updated_issue_ids_by_instant_ties_as_go_sorts_them(aggregates_dump: Artifacts) -> None:
    ids = aggregates_dump["answers"]["aggregates"]["most_recently_updated_issue_ids"]
    assert ids == [f"issue-{n}" for n in (5, 4, 1, 2, 3, 12, 11, 10, 9, 8)]


def test_fewer_than_ten_records_lists_all_and_empty_label_counts(tmp_path: Path) -> None:
    records = [
        issue(1, created="2026-01-03T00:00:00Z", updated="2026-01-04T00:00:00Z"),
        issue(2, created="2026-01-01T00:00:00Z", updated="2026-01-05T00:00:00Z"),
        issue(3, created="2026-01-02T00:00:00Z", updated="2026-01-04T00:00:00Z"),
    ]
    aggregates = freeze_dump(tmp_path, records)["answers"]["aggregates"]
    assert aggregates == {
        "state_counts": {"OPEN": 3},
        "label_counts": {},
        "newest_issue_ids": ["issue-1", "issue-3", "issue-2"],
        "most_recently_updated_issue_ids": ["issue-2", "issue-1", "issue-3"],  # 1 and 3 tie: number order
    }


# --- §6 artifacts and their bytes ------------------------------------------------------


def bytes_dump_raw() -> bytes:
    """A raw dump as bytes: a lone surrogate escape and an invalid UTF-8 byte included."""
    no_closed_key = issue(6, body="no closedAt key")
    del no_closed_key["closedAt"]
    records = [
        issue(1, created="2026-01-01T00:00:00.500+02:00", updated="2026-03-01T01:30:00.9+02:00"),
        issue(2, state="CLOSED", created="2026-01-02T00:00:00+00:00",
              updated="2026-03-01T03:00:00+06:00", closed="2026-01-05T00:00:00.000Z"),
        issue(3, state="CLOSED", created="2026-01-03T00:00:00-00:00",
              updated="2026-02-28T23:00:00Z", closed="2026-01-04T10:00:00.1200-05:00"),
        issue(4, title="<tag> & co", body="a\u2028b\u2029c\x01\x1f\x7f\t\n\r\b\f\"\\é🎉"),
        issue(5, title="lone LONE_SURROGATE end", body="bad INVALID_BYTE byte"),
        no_closed_key,
    ]  # fmt: skip
    text = json.dumps(records, ensure_ascii=True).encode("ascii")
    return text.replace(b"LONE_SURROGATE", b"\\ud800").replace(b"INVALID_BYTE", b"\xff")


@pytest.fixture(scope="module")
def bytes_dump(tmp_path_factory: pytest.TempPathFactory) -> Artifacts:
    return freeze_dump(tmp_path_factory.mktemp("bytes"), bytes_dump_raw())


def test_frozen_at_is_latest_updated_instant_in_utc_whole_seconds(bytes_dump: Artifacts) -> None:
    assert bytes_dump["public"]["frozen_at"] == "2026-02-28T23:30:00Z"


@pytest.mark.parametrize(
    ("number", "created_at", "updated_at", "closed_at"),
    [
        (1, "2026-01-01T00:00:00.5+02:00", "2026-03-01T01:30:00.9+02:00", None),
        (2, "2026-01-02T00:00:00Z", "2026-03-01T03:00:00+06:00", "2026-01-05T00:00:00Z"),
        (3, "2026-01-03T00:00:00Z", "2026-02-28T23:00:00Z", "2026-01-04T10:00:00.12-05:00"),
        (6, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", None),
    ],
)
def test_timestamps_written_back_normalized(
    bytes_dump: Artifacts, number: int, created_at: str, updated_at: str, closed_at: str | None
) -> None:
    public = record(bytes_dump, number)
    assert (public["created_at"], public["updated_at"], public["closed_at"]) == (created_at, updated_at, closed_at)


@pytest.mark.parametrize(
    "expected",
    [
        b'"title": "\\u003ctag\\u003e \\u0026 co",\n',
        b'"body": "a\\u2028b\\u2029c\\u0001\\u001f\x7f\\t\\n\\r\\b\\f\\"\\\\\xc3\xa9\xf0\x9f\x8e\x89",\n',
        b'"title": "lone \xef\xbf\xbd end",\n',
        b'"body": "bad \xef\xbf\xbd byte",\n',
        b'"closed_at": null,\n',
    ],
)
def test_public_strings_escaped_as_go_writes_them(bytes_dump: Artifacts, expected: bytes) -> None:
    assert expected in bytes_dump["public_bytes"]


def test_digests_of_decoded_text(bytes_dump: Artifacts) -> None:
    assert record(bytes_dump, 5)["title_sha256"] == sha256("lone \ufffd end")
    assert record(bytes_dump, 5)["body_sha256"] == sha256("bad \ufffd byte")
    assert record(bytes_dump, 4)["body_sha256"] == sha256("a\u2028b\u2029c\x01\x1f\x7f\t\n\r\b\f\"\\é🎉")


def test_key_order(bytes_dump: Artifacts) -> None:
    public, answers = bytes_dump["public"], bytes_dump["answers"]
    assert list(public) == ["schema", "source", "frozen_at", "records"]
    assert list(public["records"][0]) == [
        "id", "split", "number", "title", "body", "created_at", "updated_at", "url", "state", "labels",
        "closed_at", "title_sha256", "body_sha256",
    ]  # fmt: skip
    assert list(answers) == ["schema", "corpus_sha256", "answers", "aggregates"]
    assert list(answers["answers"][0]) == [
        "id", "split", "state", "labels", "references", "duplicate_targets", "scope_contradictions",
    ]  # fmt: skip
    assert list(answers["aggregates"]) == [
        "state_counts", "label_counts", "newest_issue_ids", "most_recently_updated_issue_ids",
    ]  # fmt: skip


def test_exact_bytes_of_a_two_record_freeze(tmp_path: Path) -> None:
    # 9 is a test-split key: a freeze with no test record fails its oracle leak check (§6, §8)
    records = [
        issue(9, labels=["b", "a"]),
        issue(10, state="CLOSED", body="see #9", created="2026-01-02T00:00:00Z", closed="2026-01-03T00:00:00Z"),
    ]
    frozen = freeze_dump(tmp_path, records)
    corpus_sha256 = hashlib.sha256(frozen["public_bytes"]).hexdigest()
    assert frozen["public_bytes"].decode() == (
        "{\n"
        '  "schema": "fak-microcontext-corpus/1",\n'
        '  "source": "test",\n'
        '  "frozen_at": "2026-01-02T00:00:00Z",\n'
        '  "records": [\n'
        "    {\n"
        '      "id": "issue-9",\n'
        f'      "split": "{split_of(9)}",\n'
        '      "number": 9,\n'
        '      "title": "Issue 9",\n'
        '      "body": "",\n'
        '      "created_at": "2026-01-01T00:00:00Z",\n'
        '      "updated_at": "2026-01-01T00:00:00Z",\n'
        '      "url": "https://github.com/demo/x/issues/9",\n'
        '      "state": "OPEN",\n'
        '      "labels": [\n'
        '        "a",\n'
        '        "b"\n'
        "      ],\n"
        '      "closed_at": null,\n'
        f'      "title_sha256": "{sha256("Issue 9")}",\n'
        f'      "body_sha256": "{sha256("")}"\n'
        "    },\n"
        "    {\n"
        '      "id": "issue-10",\n'
        f'      "split": "{split_of(9)}",\n'
        '      "number": 10,\n'
        '      "title": "Issue 10",\n'
        '      "body": "see #9",\n'
        '      "created_at": "2026-01-02T00:00:00Z",\n'
        '      "updated_at": "2026-01-02T00:00:00Z",\n'
        '      "url": "https://github.com/demo/x/issues/10",\n'
        '      "state": "CLOSED",\n'
        '      "labels": null,\n'
        '      "closed_at": "2026-01-03T00:00:00Z",\n'
        f'      "title_sha256": "{sha256("Issue 10")}",\n'
        f'      "body_sha256": "{sha256("see #9")}"\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )
    assert frozen["answers_bytes"].decode() == (
        "{\n"
        '  "schema": "fak-microcontext-answers/1",\n'
        f'  "corpus_sha256": "{corpus_sha256}",\n'
        '  "answers": [\n'
        "    {\n"
        '      "id": "issue-9",\n'
        f'      "split": "{split_of(9)}",\n'
        '      "state": "OPEN",\n'
        '      "labels": [\n'
        '        "a",\n'
        '        "b"\n'
        "      ],\n"
        '      "references": [],\n'
        '      "duplicate_targets": [],\n'
        '      "scope_contradictions": []\n'
        "    },\n"
        "    {\n"
        '      "id": "issue-10",\n'
        f'      "split": "{split_of(9)}",\n'
        '      "state": "CLOSED",\n'
        '      "labels": [],\n'
        '      "references": [\n'
        "        9\n"
        "      ],\n"
        '      "duplicate_targets": [],\n'
        '      "scope_contradictions": []\n'
        "    }\n"
        "  ],\n"
        '  "aggregates": {\n'
        '    "state_counts": {\n'
        '      "CLOSED": 1,\n'
        '      "OPEN": 1\n'
        "    },\n"
        '    "label_counts": {\n'
        '      "a": 1,\n'
        '      "b": 1\n'
        "    },\n"
        '    "newest_issue_ids": [\n'
        '      "issue-10",\n'
        '      "issue-9"\n'
        "    ],\n"
        '    "most_recently_updated_issue_ids": [\n'
        '      "issue-10",\n'
        '      "issue-9"\n'
        "    ]\n"
        "  }\n"
        "}\n"
    )
    report = frozen["report"]
    answers_sha256 = hashlib.sha256(frozen["answers_bytes"]).hexdigest()
    assert (report["corpus_sha256"], report["answers_sha256"]) == (corpus_sha256, answers_sha256)
