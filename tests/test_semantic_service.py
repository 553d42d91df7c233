"""`serve --semantic`: the grading service grades the answers to the rubric too. A test
submission gets one Ladder score and nothing per record or field; a tune submission the
full semantic grade; a client mining the adjudicated labels one flip at a time learns
nothing from the service that it learns from plain counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from adjudicated import made_gold
from conftest import S8F_ANSWERS, needs_s8f, run_cli
from test_service import start_server

pytestmark = needs_s8f
TEST_ANSWER = {"id", "team", "received_at", "split", "sha256", "status", "score", "improved", "ladder_step", "note"}


@pytest.fixture(scope="module")
def semantic(packet: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_gold(packet, tmp_path_factory.mktemp("gold"))


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from conftest import S8F_PUBLIC

    path = tmp_path_factory.mktemp("baseline") / "submission.json"
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", path).returncode == 0
    return json.loads(path.read_bytes())


def with_semantic(baseline: dict[str, Any], bundle: dict[str, Any], choose: Any) -> dict[str, Any]:
    """The SQL baseline's answers, with the semantic answers `choose(gold entry)` gives."""
    return {**baseline, "semantic": [{"id": g["id"], "field": g["field"], "values": choose(g)} for g in bundle["gold"]]}


def test_one_score_on_test_the_full_grade_on_tune_and_no_label_mined(
    tmp_path: Path, semantic: Path, baseline: dict[str, Any]
) -> None:
    made = run_cli("team", "--teams", tmp_path / "teams.json", "alpha")
    assert made.returncode == 0, made.stderr
    server = start_server(tmp_path, {"alpha": made.stdout.strip()}, "--semantic", str(semantic), "--daily-limit", "20")
    try:
        bundle = json.loads(semantic.read_text(encoding="utf-8"))
        first = {f["name"]: f["values"][0] for f in bundle["rubric"]}
        base = with_semantic(baseline, bundle, lambda g: [first[g["field"]]])  # the attacker's guess everywhere
        client = server.client("alpha")

        tune = client.post("/submissions?split=tune", json=base)
        assert tune.status_code == 201, tune.text
        fields = tune.json()["grade"]["semantic"]["fields"]
        assert [f["field"] for f in fields] == list(first) and all(f["records"] == 40 for f in fields)

        test_gold = [g for g in bundle["gold"] if g["split"] == "test"]
        probes = [g for g in test_gold if g["values"] != [first[g["field"]]]][:3]
        probes += [g for g in test_gold if g["values"] == [first[g["field"]]]][:3]
        assert probes

        def flipped(probe: dict[str, Any]) -> dict[str, Any]:
            other = next(v for v in next(f for f in bundle["rubric"] if f["name"] == probe["field"])["values"]
                         if v != first[probe["field"]])  # fmt: skip
            return with_semantic(baseline, bundle, lambda g: [other] if g is probe else [first[g["field"]]])

        def plain(submission: dict[str, Any]) -> float:  # a grader that shows the semantic accuracy
            path = tmp_path / "probe.json"
            path.write_text(json.dumps(submission))
            done = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--semantic", semantic,
                           "--format", "json")  # fmt: skip
            return sum(f["accuracy"] * f["records"] for f in json.loads(done.stdout)["semantic"]["fields"])

        def service(submission: dict[str, Any]) -> float:  # all the service tells of a test submission
            posted = client.post("/submissions", json=submission)
            assert posted.status_code == 201, posted.text
            assert set(posted.json()) == TEST_ANSWER  # one score: nothing per record or field
            return posted.json()["score"]

        for ask, expect_learned in ((plain, True), (service, False)):
            reference = ask(base)
            learned = {id(p): ask(flipped(p)) != reference for p in probes}
            assert (all(learned.values()) if expect_learned else not any(learned.values()))  # counts: each; Ladder: none
        copied = client.post("/submissions", json=with_semantic(baseline, bundle, lambda g: g["values"]))
        assert copied.status_code == 201, copied.text
        answer = copied.json()
        assert answer["score"] == 1.0  # every test record exact, every adjudicated field right
        assert set(answer) == TEST_ANSWER
    finally:
        server.stop()
