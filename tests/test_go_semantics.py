"""The original tool's bytes, or a refusal, on inputs where Go's behaviour is easy to miss, as
the contract states Go's rules: one test per cause that a differential campaign against
the original found."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, answer, freeze_dump, issue, record, run_cli, write_json


def day(n: int) -> str:
    return f"2026-01-{n:02d}T00:00:00Z"


# --- state: Go's strings.ToUpper, in the public corpus as in the answers ---


def test_state_is_upper_cased_as_go_does_it_everywhere(tmp_path: Path) -> None:
    states = {1: "open", 2: "Closed", 3: "cloſed", 4: "groß", 5: "OPEN"}
    art = freeze_dump(tmp_path, [issue(n, state=s) for n, s in states.items()])
    expected = {1: "OPEN", 2: "CLOSED", 3: "CLOSED", 4: "GROß", 5: "OPEN"}  # ß has no simple upper case
    assert {n: record(art, n)["state"] for n in states} == expected
    assert {n: answer(art, n)["state"] for n in states} == expected
    assert art["answers"]["aggregates"]["state_counts"] == {"CLOSED": 2, "GROß": 1, "OPEN": 2}
    assert (art["report"]["open_records"], art["report"]["closed_records"]) == (2, 2)
    assert "GROẞ".encode() not in art["public_bytes"] + art["answers_bytes"]
    verified = run_cli("verify", "--public", tmp_path / "public.json", "--answers", tmp_path / "answers.json",
                       "--report", tmp_path / "report.json")  # fmt: skip
    assert verified.returncode == 0, verified.stderr


# --- top-ten ties: where Go's sort.Slice (pdqsort) leaves them ---


def top_ten(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[list[int], list[int]]:
    aggregates = freeze_dump(tmp_path, records)["answers"]["aggregates"]
    return (
        [int(i.removeprefix("issue-")) for i in aggregates["newest_issue_ids"]],
        [int(i.removeprefix("issue-")) for i in aggregates["most_recently_updated_issue_ids"]],
    )


def test_two_and_three_tied_records_stay_in_number_order_in_a_short_list(tmp_path: Path) -> None:
    """Up to 12 records Go's pdqsort is an insertion sort: stable, so ties keep the
    number order the reference sorts from (the old tie-break, number descending, did not)."""
    created = {1: 1, 2: 5, 3: 5, 4: 3, 5: 2}
    updated = {1: 9, 2: 4, 3: 9, 4: 9, 5: 1}
    newest, updated_first = top_ten(tmp_path, [issue(n, created=day(created[n]), updated=day(updated[n])) for n in created])
    assert newest == [2, 3, 4, 5, 1]
    assert updated_first == [1, 3, 4, 2, 5]


def test_eleven_tied_records_reaching_the_top_ten(tmp_path: Path) -> None:
    records = [issue(1, created=day(1), updated=day(1))]
    records += [issue(n, created=day(2), updated=day(1 if n % 2 else 2)) for n in range(2, 13)]  # 11 tied
    newest, updated_first = top_ten(tmp_path, records)
    assert newest == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert updated_first == [2, 4, 6, 8, 10, 12, 1, 3, 5, 7]


def test_twelve_tied_records_in_pdqsort(tmp_path: Path) -> None:
    """13 records, the first older, the other 12 tied: pdqsort partitions, and Go puts the
    sixth of the tied ones first (Go's own output for this slice: the note in
    gosort.py's tests, test_gosort.py)."""
    records = [issue(1, created=day(1))] + [issue(n, created=day(2)) for n in range(2, 14)]
    newest, _ = top_ten(tmp_path, records)
    assert newest == [7, 2, 3, 4, 5, 6, 8, 9, 10, 11]


def test_ties_below_the_top_ten_change_nothing(tmp_path: Path) -> None:
    records = [issue(n, created=day(n), updated=day(n)) for n in range(1, 21)]
    records += [issue(n, created=day(1), updated=day(1)) for n in range(21, 30)]  # tied, but old
    newest, _ = top_ten(tmp_path, records)
    assert newest == list(range(20, 10, -1))


# --- references: (?i) folds the class [^[:alnum:]_] too ---


def test_long_s_and_kelvin_sign_before_a_hash_cite_nothing(tmp_path: Path) -> None:
    body = "ſ#14 K#15 x#16 é#17 ſ #18 K\n#19 #20ſ"
    art = freeze_dump(tmp_path, [issue(1, body=body)])
    assert answer(art, 1)["references"] == [17, 18, 19, 20]


# --- keys: Go matches them case-insensitively, with Unicode folding; a field given twice is refused ---


def keyed_dump(tmp_path: Path, replace: dict[str, str]) -> bytes:
    records = [issue(1, "First", "body one", labels=["bug"]), issue(2, "Second", closed=None)]
    text = json.dumps(records)
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    return text.encode()


@pytest.mark.parametrize(
    "replace, number, field, value",
    [
        ({'"closedAt": null': '"cloſedAt": "2026-02-01T00:00:00Z"'}, 1, "closed_at", "2026-02-01T00:00:00Z"),
        ({'"state": "OPEN"': '"ſtate": "closed"'}, 1, "state", "CLOSED"),
        ({'"title": "First"': '"title": "First", "TİTLE": "Dotted"'}, 1, "title", "First"),  # İ folds to no I
        ({'"title": "First"': '"title": "First", "tıtle": "Dotless"'}, 1, "title", "First"),  # nor does ı
        ({'"title": "First"': '"Title": "Upper"'}, 1, "title", "Upper"),
        ({'{"name": "bug"}': '{"Name": "bug"}'}, 1, "labels", ["bug"]),
    ],
)
def test_keys_are_matched_as_go_matches_them(tmp_path: Path, replace: dict[str, str], number: int, field: str,
                                             value: Any) -> None:  # fmt: skip
    art = freeze_dump(tmp_path, keyed_dump(tmp_path, replace))
    assert record(art, number)[field] == value


@pytest.mark.parametrize(
    "replace, place",
    [
        ({'"title": "First"': '"title": "first", "Title": "later"'}, "record 0, field 'title'"),
        ({'"title": "First"': '"TITLE": "earlier", "title": "last"'}, "record 0, field 'title'"),
        ({'{"name": "bug"}': '{"name": "bug", "NAME": "later"}'}, "record 0, field 'labels[0].name'"),
        ({'"labels": [{"name": "bug"}]': '"labels": [{"name": "a"}], "labelſ": [{"name": "b"}]'},
         "record 0, field 'labels'"),
        ({'"body": "body one"': '"body": "b", "body": "c"'}, "record 0, field 'body'"),
        ({'"body": "body one"': '"body": "b", "body": null'}, "record 0, field 'body'"),
        ({'"title": "First"': '"title": "a", "Title": null'}, "record 0, field 'title'"),
        ({'"labels": [{"name": "bug"}]': '"labels": [{"name": "a"}], "labels": null'}, "record 0, field 'labels'"),
        ({'{"name": "bug"}': '{"name": "bug", "name": null}'}, "record 0, field 'labels[0].name'"),
        ({'"closedAt": null, "url": "https://github.com/demo/x/issues/2"':
          '"closedAt": "2026-02-01T00:00:00Z", "closedAt": null, "url": "u"'}, "record 1, field 'closedAt'"),
    ],
)
def test_a_repeated_field_is_refused(tmp_path: Path, replace: dict[str, str], place: str) -> None:
    """Go decodes a repeat into what the first one built (keeping, merging or dropping the
    earlier value by the field's type): a record with one is refused rather than guessed."""
    raw = tmp_path / "raw.json"
    raw.write_bytes(keyed_dump(tmp_path, replace))
    result = run_cli("freeze", raw, "--source", "t", "--min-records", "1", "--public", tmp_path / "p.json",
                     "--answers", tmp_path / "a.json", "--report", tmp_path / "r.json")  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert place in result.stderr and "repeats the field" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "p.json").exists()


def grade_text(tmp_path: Path, answers: Path, text: str) -> tuple[int, str, dict[str, Any] | None]:
    (tmp_path / "sub.json").write_text(text)
    out = tmp_path / "g.json"
    result = run_cli("grade", "--answers", answers, "--submission", tmp_path / "sub.json", "--output", out)
    return result.returncode, result.stderr, json.loads(out.read_text()) if out.exists() else None


def test_submission_keys_are_matched_as_go_matches_them(tmp_path: Path) -> None:
    art = freeze_dump(tmp_path, [issue(9, state="OPEN", labels=["bug"]), issue(10, state="CLOSED")])
    submission = json.dumps({**art["answers"], "schema": "fak-microcontext-submission/1"})
    for old, new in [('"state"', '"ſtate"'), ('"labels"', '"LABELS"'), ('"state_counts"', '"ſtate_counts"'),
                     ('"answers"', '"Answers"')]:  # fmt: skip
        code, stderr, graded = grade_text(tmp_path, tmp_path / "answers.json", submission.replace(old, new))
        assert code == 0 and graded is not None and graded["quality_pass"], (new, stderr)
    code, stderr, _ = grade_text(tmp_path, tmp_path / "answers.json",
                                 submission.replace('"state": "OPEN"', '"state": "OPEN", "State": null'))  # fmt: skip
    assert code == 2 and "answers[0].state" in stderr and "repeats the field" in stderr


# --- a --source that is not UTF-8: Go writes each invalid byte as \ufffd ---


def test_source_that_is_not_utf8_is_written_as_go_writes_it(tmp_path: Path) -> None:
    write_json(tmp_path / "raw.json", [issue(1), issue(2)])
    paths = [tmp_path / f"{name}.json" for name in ("public", "answers", "report")]
    result = subprocess.run(
        [str(CLI), "freeze", str(tmp_path / "raw.json"), "--public", str(paths[0]), "--answers", str(paths[1]),
         "--report", str(paths[2]), "--min-records", "1", "--source".encode(), b"a\xffb\xe2\x82c \xef\xbf\xbd"],
        capture_output=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert b'"source": "a\\ufffdb\\ufffd\\ufffdc \xef\xbf\xbd",\n' in paths[0].read_bytes()
    verified = run_cli("verify", "--public", paths[0], "--answers", paths[1], "--report", paths[2])
    assert verified.returncode == 0, verified.stderr
