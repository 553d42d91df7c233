"""docs/format.md §8: grading the published S8f answers against perturbed copies of themselves."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import S8F_ANSWERS, needs_s8f, run_cli

pytestmark = needs_s8f
CORE = ("test_records", "exact_records", "false_positive_facts", "false_negative_facts",
        "aggregate_errors", "citation_errors", "quality_pass")  # fmt: skip


@pytest.fixture(scope="module")
def gold() -> dict[str, Any]:
    return json.loads(S8F_ANSWERS.read_bytes())


def as_submission(gold: dict[str, Any]) -> dict[str, Any]:
    sub = copy.deepcopy(gold)
    sub["schema"] = "fak-microcontext-submission/1"
    return sub


def facts(answer: dict[str, Any]) -> int:
    """Independent count of an answer's distinct facts."""
    return 1 + len(set(answer["labels"])) + len(set(answer["references"])) + len(
        set(answer["duplicate_targets"])
    ) + len(set(answer["scope_contradictions"]))


def held_out(gold: dict[str, Any], n: int, *, with_labels: bool = False) -> list[int]:
    """Positions of the first n test records (optionally with at least one label)."""
    return [i for i, a in enumerate(gold["answers"]) if a["split"] == "test" and (a["labels"] or not with_labels)][:n]


def grade(tmp_path: Path, submission: Any, *args: str) -> tuple[int, dict[str, Any] | None, str]:
    path = tmp_path / "submission.json"
    path.write_text(submission if isinstance(submission, str) else json.dumps(submission, ensure_ascii=False))
    out = tmp_path / "grade.json"
    result = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--output", out, *args)
    report = json.loads(out.read_text()) if result.returncode != 2 else None
    return result.returncode, report, result.stdout + result.stderr


def core(report: dict[str, Any] | None) -> tuple[Any, ...]:
    assert report is not None
    return tuple(report[k] for k in CORE)


def test_published_answers_grade_themselves_exactly(tmp_path: Path, gold: dict[str, Any]) -> None:
    code, report, out = grade(tmp_path, as_submission(gold), "--format", "table")
    assert code == 0
    assert core(report) == (680, 680, 0, 0, 0, 0, True)
    assert list(report)[:9] == ["schema", "corpus_sha256", *CORE]
    assert report["schema"] == "fak-microcontext-grade/1"
    assert "PASS: 680/680" in out and "scope_contradictions" in out


def test_missing_records_lose_all_their_facts(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    drop = held_out(gold, 3)
    lost = sum(facts(gold["answers"][i]) for i in drop)
    sub["answers"] = [a for i, a in enumerate(sub["answers"]) if i not in drop]
    code, report, _ = grade(tmp_path, sub)
    assert code == 1
    assert core(report) == (680, 677, 0, lost, 0, 0, False)
    assert report["breakdown"]["records"]["missing_from_submission"] == 3


def test_extra_label_is_one_false_positive(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    (i,) = held_out(gold, 1)
    sub["answers"][i]["labels"].append("not-a-real-label")
    code, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 679, 1, 0, 0, 0, False)
    labels = next(s for s in report["breakdown"]["slices"] if s["slice"] == "labels")
    assert labels["false_positive_facts"] == 1 and labels["first_records_with_errors"] == [gold["answers"][i]["id"]]


def test_flipped_states_are_a_false_positive_and_negative_each(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    for i in held_out(gold, 2):
        sub["answers"][i]["state"] = "OPEN" if gold["answers"][i]["state"] == "CLOSED" else "CLOSED"
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 678, 2, 2, 0, 0, False)


def test_null_lists_count_as_empty(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    (i,) = held_out(gold, 1, with_labels=True)
    sub["answers"][i]["labels"] = None
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 679, 0, len(set(gold["answers"][i]["labels"])), 0, 0, False)


def test_facts_are_sets_reordered_or_repeated_elements_stay_exact(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    test = [i for i, a in enumerate(gold["answers"]) if a["split"] == "test"]
    (i,) = [j for j in test if len(set(gold["answers"][j]["labels"])) > 1][:1]
    (k,) = [j for j in test if gold["answers"][j]["references"]][:1]
    sub["answers"][i]["labels"] = list(reversed(gold["answers"][i]["labels"]))
    sub["answers"][k]["references"] = gold["answers"][k]["references"] * 2
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 680, 0, 0, 0, 0, True)
    gold_counts = {s["slice"]: (s["gold_facts"], s["submitted_facts"]) for s in report["breakdown"]["slices"]}
    assert gold_counts["labels"][0] == gold_counts["labels"][1] == sum(
        len(set(gold["answers"][j]["labels"])) for j in test
    )
    assert gold_counts["references"][1] == sum(len(set(gold["answers"][j]["references"])) for j in test)
    sub["answers"][i]["labels"].append(gold["answers"][i]["labels"][0])  # a repeat still adds no fact
    sub["answers"][k]["references"] = gold["answers"][k]["references"][1:]  # one fact fewer
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 679, 0, 1, 0, 0, False)


def test_answer_bundle_with_a_repeated_id_is_refused(tmp_path: Path, gold: dict[str, Any]) -> None:
    bundle = copy.deepcopy(gold)
    bundle["answers"].append(copy.deepcopy(bundle["answers"][3]))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(bundle))
    result = run_cli("grade", "--answers", answers, "--submission", S8F_ANSWERS, "--output", tmp_path / "g.json")
    assert result.returncode == 2 and not (tmp_path / "g.json").exists()
    assert f"answers[1000] repeats the id '{gold['answers'][3]['id']}' of answers[3]" in result.stderr


def test_unusual_but_valid_values_are_graded_as_facts(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    (i,) = held_out(gold, 1)
    sub["answers"][i]["labels"] = gold["answers"][i]["labels"] + ['quote " back \\ \u00e9', None]
    sub["answers"][i]["references"] = gold["answers"][i]["references"] + [9223372036854775807, None]
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 679, 4, 0, 0, 0, False)  # two labels, two references ('' and 0 for null)


def test_repeated_id_is_a_citation_error_and_the_last_copy_counts(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    (i,) = held_out(gold, 1)
    wrong = copy.deepcopy(sub["answers"][i])
    wrong["state"] = "OPEN" if wrong["state"] == "CLOSED" else "CLOSED"
    sub["answers"].insert(0, wrong)  # the wrong copy first, the right one last
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 680, 0, 0, 0, 1, False)
    sub["answers"].append(wrong)  # now the wrong copy is last: 2 repeats
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 679, 1, 1, 0, 2, False)
    assert report["breakdown"]["citation_errors"]["first"][0]["reason"] == "repeated id"


@pytest.mark.parametrize(
    "ident", ["issue-999999", "ISSUE-5105", "", "issue-1'; DROP TABLE answers; --", "issue-5105 ", '") OR 1=1 --']
)
def test_unknown_ids_are_citation_errors(tmp_path: Path, gold: dict[str, Any], ident: str) -> None:
    sub = as_submission(gold)
    sub["answers"].append({**copy.deepcopy(sub["answers"][0]), "id": ident})
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 680, 0, 0, 0, 1, False)
    assert report["breakdown"]["citation_errors"]["first"] == [
        {"position": len(sub["answers"]) - 1, "id": ident, "reason": "unknown id"}
    ]


def test_case_changed_id_is_unknown_and_leaves_the_record_missing(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    (i,) = held_out(gold, 1)
    sub["answers"][i]["id"] = sub["answers"][i]["id"].upper()
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 679, 0, facts(gold["answers"][i]), 0, 1, False)


@pytest.mark.parametrize("change", ["label_count", "newest_order", "state_count_zero", "both"])
def test_any_aggregate_difference_is_one_aggregate_error(tmp_path: Path, gold: dict[str, Any], change: str) -> None:
    sub = as_submission(gold)
    aggregates = sub["aggregates"]
    if change in ("label_count", "both"):
        first = next(iter(aggregates["label_counts"]))
        aggregates["label_counts"][first] += 1
    if change in ("newest_order", "both"):
        ids = aggregates["newest_issue_ids"]
        ids[0], ids[1] = ids[1], ids[0]
    if change == "state_count_zero":
        aggregates["state_counts"]["MERGED"] = 0  # a key gold does not have, even with 0
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 680, 0, 0, 1, 0, False)
    differing = {a["aggregate"]: a["differences"] for a in report["breakdown"]["aggregates"] if not a["exact"]}
    expected = {
        "label_count": {"label_counts": 1},
        "newest_order": {"newest_issue_ids": 2},
        "state_count_zero": {"state_counts": 1},
        "both": {"label_counts": 1, "newest_issue_ids": 2},
    }[change]
    assert differing == expected


def test_train_and_tune_answers_are_never_compared(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    sub["answers"] = [a for a in sub["answers"] if a["split"] == "test"]  # drop every train/tune record
    for a in sub["answers"]:
        a["split"] = "train"  # the submission's split is ignored
        a["extra"] = {"unknown": "fields are ignored"}
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 680, 0, 0, 0, 0, True)
    sub["answers"].append({"id": next(a["id"] for a in gold["answers"] if a["split"] == "train"), "state": "X"})
    _, report, _ = grade(tmp_path, sub)
    assert core(report) == (680, 680, 0, 0, 0, 0, True)


def test_submission_bound_to_another_corpus_fails_plainly(tmp_path: Path, gold: dict[str, Any]) -> None:
    sub = as_submission(gold)
    sub["corpus_sha256"] = "0" * 64
    code, report, out = grade(tmp_path, sub)
    assert code == 1
    assert core(report) == (0, 0, 0, 0, 0, 0, False)
    assert report["corpus_bound"] is False
    assert out.startswith("NOT GRADED: the submission is bound to corpus " + "0" * 64) and len(out.splitlines()) == 1


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda s: s["answers"][3].update(references=["4968"]), "answers[3] (id 'issue-5108').references[0] must be an integer"),
        (lambda s: s["answers"][3].update(references=[1.5]), "answers[3] (id 'issue-5108').references[0] must be an integer"),
        (lambda s: s["answers"][3].update(references=[9223372036854775808]), "answers[3] (id 'issue-5108').references[0] must be an integer"),
        (lambda s: s["answers"][3].update(duplicate_targets=[1, True]), "answers[3] (id 'issue-5108').duplicate_targets[1] must be an integer, got boolean"),
        (lambda s: s["answers"][4].update(labels=["ok", 5]), "answers[4] (id 'issue-5109').labels[1] must be a string, got number"),
        (lambda s: s["answers"][4].update(scope_contradictions=[["x"]]), "answers[4] (id 'issue-5109').scope_contradictions[0] must be a string, got array"),
        (lambda s: s["answers"][4].update(split=5), "answers[4] (id 'issue-5109').split must be a string, got number"),
        (lambda s: s["answers"][0].update(labels="bug"), "answers[0] (id 'issue-5105').labels must be an array"),
        (lambda s: s["answers"][2].update(id=7), "answers[2].id must be a string"),
        (lambda s: s["answers"].__setitem__(1, "issue-5106"), "answers[1] must be an object"),
        (lambda s: s["answers"].__setitem__(1, 5), "answers[1] must be an object, got number"),
        (lambda s: s["aggregates"]["state_counts"].update(OPEN="380"), "aggregates.state_counts['OPEN'] must be an integer"),
        (lambda s: s["aggregates"].update(newest_issue_ids=[1]), "aggregates.newest_issue_ids[0] must be a string"),
        (lambda s: s.update(answers={}), "answers must be an array"),
    ],
)  # fmt: skip
def test_malformed_submission_exits_2_naming_the_field(
    tmp_path: Path, gold: dict[str, Any], mutate: Any, message: str
) -> None:
    sub = as_submission(gold)
    mutate(sub)
    (tmp_path / "grade.json").write_text("previous grade\n")
    code, _, out = grade(tmp_path, sub)
    assert code == 2
    assert message in out
    assert (tmp_path / "grade.json").read_text() == "previous grade\n"


@pytest.mark.parametrize("text, message", [('{"answers": [', "not JSON"), ("[1, 2]", "must be a JSON object")])
def test_undecodable_submission_exits_2(tmp_path: Path, text: str, message: str) -> None:
    code, report, out = grade(tmp_path, text)
    assert code == 2 and report is None and message in out


def test_missing_answers_file_exits_2(tmp_path: Path) -> None:
    result = run_cli("grade", "--answers", tmp_path / "none.json", "--submission", S8F_ANSWERS,
                     "--output", tmp_path / "g.json")  # fmt: skip
    assert result.returncode == 2 and "none.json: cannot read" in result.stderr
    assert not (tmp_path / "g.json").exists()


def test_a_grade_in_process_equals_the_command(tmp_path: Path, gold: dict[str, Any]) -> None:
    """What `s8f-duck serve` does (one Grader, the answers read once, many grades, some at
    once on threads) gives the bytes `s8f-duck grade` writes, submission by submission."""
    from concurrent.futures import ThreadPoolExecutor

    from s8f_duck.grading.grade import Grader
    from s8f_duck.reading.gojson import dumps

    exact = as_submission(gold)
    wrong = as_submission(gold)
    for i in held_out(gold, 3, with_labels=True):
        wrong["answers"][i]["labels"] = wrong["answers"][i]["labels"][1:] + ["not-a-label"]
    wrong["answers"].append({**copy.deepcopy(wrong["answers"][0]), "id": "issue-999999"})
    wrong["aggregates"]["newest_issue_ids"].reverse()
    cases = [(exact, "test"), (wrong, "test"), (wrong, "tune"), (exact, "train")]
    commands = []
    for n, (sub, split) in enumerate(cases):
        path = tmp_path / f"submission-{n}.json"
        path.write_text(json.dumps(sub, ensure_ascii=False))
        run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--output", tmp_path / f"grade-{n}.json",
                "--split", split)  # fmt: skip
        commands.append((path, split, (tmp_path / f"grade-{n}.json").read_bytes()))
    assert len({written for _, _, written in commands}) == len(cases)  # the cases differ
    with Grader(S8F_ANSWERS) as grader:
        for path, split, written in commands:
            assert dumps(grader.grade(path, split)).encode() == written
        with ThreadPoolExecutor(2) as pool:
            again = list(pool.map(lambda case: dumps(grader.grade(case[0], case[1])).encode(), commands * 2))
        assert again == [written for _, _, written in commands * 2]
        itself = grader.grade(S8F_ANSWERS)  # the bundle as its own submission: its tables, read once
    run_cli("grade", "--answers", S8F_ANSWERS, "--submission", S8F_ANSWERS, "--output", tmp_path / "self.json")
    assert dumps(itself).encode() == (tmp_path / "self.json").read_bytes()


def test_freeze_layout_and_compact_submissions_grade_alike(tmp_path: Path, gold: dict[str, Any]) -> None:
    """A submission laid out as freeze writes it (indented: its answers are read straight
    into their types when nothing in it needs checking) and the same one on a single line
    (always read the checked way) give the same grade, or the same refusal."""
    sub = as_submission(gold)
    first, second = held_out(gold, 2)
    sub["answers"][first].update(labels=[None, "é \\ \" \u2028", ""], references=[None, -9223372036854775808])
    sub["answers"][second].update(duplicate_targets=None, scope_contradictions=[None], state=None, split=None)
    sub["answers"].insert(3, None)  # a null answer is Go's zero value: an answer with id ''
    sub["aggregates"]["state_counts"]["OPEN"] = None

    def both(document: dict[str, Any]) -> list[tuple[int, bytes | None, str]]:
        results = []
        for name, text in (("indented", json.dumps(document, indent=2)), ("compact", json.dumps(document))):
            path, out = tmp_path / f"{name}.json", tmp_path / f"{name}-grade.json"
            path.write_text(text)
            out.unlink(missing_ok=True)
            done = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--output", out)
            results.append((done.returncode, out.read_bytes() if out.exists() else None,
                            done.stdout + done.stderr.replace(str(path), "SUBMISSION")))  # fmt: skip
        return results

    indented, compact = both(sub)
    assert indented == compact and indented[0] == 1 and indented[1] is not None
    report = json.loads(indented[1])
    assert report["citation_errors"] == 1 and report["exact_records"] == 678  # the null answer's id is unknown
    for wrong in ({"references": [1.0]}, {"id": 5}, {"labels": [True]}, {"Labels": ["x"]}, {"references": ["1"]}):
        bad = copy.deepcopy(sub)
        bad["answers"][first].update(wrong)
        indented, compact = both(bad)
        assert indented == compact and indented[0] in (1, 2), wrong


PROGRESS_BARS = """
import sys
from pathlib import Path
from s8f_duck.grading import grade
from s8f_duck.pipeline import steps
shown = lambda con: con.execute("SELECT current_setting('enable_progress_bar')").fetchall()[0][0]
with steps.connect() as con, steps.cursor(con) as second, grade.Grader(Path(sys.argv[1])) as grader:
    with grader.session() as session, steps.work_database(None, 10**12) as work:
        print(shown(con), shown(second), shown(con.cursor()), shown(grader.con), shown(session.con), shown(work))
"""


@needs_s8f
def test_no_connection_shows_duckdbs_progress_bar(tmp_path: Path) -> None:
    """DuckDB's progress bar writes to standard output once a query has run two seconds:
    into `grade --format json` at a million records. Every connection has it off: a
    command's own, the second one for another thread, a grading session's, a freeze's work
    database. (In a process of its own: under pytest DuckDB leaves it off anyway.)"""
    import os
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", PROGRESS_BARS, str(S8F_ANSWERS)], capture_output=True, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False"] * 6
