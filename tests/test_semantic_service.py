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
from conftest import S8F_PUBLIC as S8F_PUBLIC_PATH
from test_service import start_server, stored

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
    # (a step the packet's 40 test records are large enough for: sql/service/semantic_ladder.sql)
    server = start_server(tmp_path, {"alpha": made.stdout.strip()}, "--semantic", str(semantic), "--daily-limit", "20",
                          "--ladder-step", "0.05")  # fmt: skip
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
        assert set(answer) == TEST_ANSWER
    finally:
        server.stop()
    # every test record exact, every adjudicated field right (the score stored for the operator;
    # the team is shown it only as the Ladder rounds it, and only past its best by a step)
    assert stored(server.db)[-1]["score"] == 1.0


def _small_gold(tmp_path: Path) -> Path:
    """The gold of a packet of 5 tune and 5 test records (three adjudicators, majority)."""
    from conftest import REPO, S8F_PUBLIC

    packet = tmp_path / "small-packet.json"
    made = run_cli("adjudicate", "packet", "--public", S8F_PUBLIC, "--rubric", REPO / "examples" / "rubrics" / "triage.toml",
                   "--records", "5", "--output", packet)  # fmt: skip
    assert made.returncode == 0, made.stderr
    return made_gold(packet, tmp_path)


def test_a_gold_too_small_for_the_step_is_refused_and_at_its_step_mining_learns_nothing(
    tmp_path: Path, baseline: dict[str, Any]
) -> None:
    """A gold of 5 adjudicated test records: at the default step, `serve --semantic` refuses
    it naming the sizes; at the step it names, a client that flips one test label at a time
    and keeps a flip when `improved` is true learns no more than its blind guess."""
    semantic = _small_gold(tmp_path)
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    test_gold = [g for g in bundle["gold"] if g["split"] == "test"]
    made = run_cli("team", "--teams", tmp_path / "teams.json", "alpha")
    refused = run_cli("serve", "--answers", S8F_ANSWERS, "--public", S8F_PUBLIC_PATH, "--db", tmp_path / "s.duckdb",
                      "--teams", tmp_path / "teams.json", "--semantic", semantic, "--port", "0")  # fmt: skip
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert "too small for the Ladder step 0.01" in refused.stderr
    assert f"2x{len(test_gold)}) for its adjudicated labels" in refused.stderr, refused.stderr
    step = refused.stderr.split("give --ladder-step ")[1].split()[0]
    print(f"small gold: {len(test_gold)} adjudicated test labels; refused at 0.01; least step {step}")
    server = start_server(tmp_path, {"alpha": made.stdout.strip()}, "--semantic", str(semantic),
                          "--ladder-step", step, "--daily-limit", str(len(test_gold) + 2))  # fmt: skip
    try:
        values = {f["name"]: f["values"] for f in bundle["rubric"]}
        guess = {(g["id"], g["field"]): values[g["field"]][0] for g in bundle["gold"]}  # the blind guess

        def submit(labels: dict[tuple[str, str], str]) -> bool:
            posted = server.client("alpha").post("/submissions", json={
                **baseline, "semantic": [{"id": i, "field": f, "values": [v]} for (i, f), v in labels.items()]})
            assert posted.status_code == 201, posted.text
            return posted.json()["improved"]

        assert submit(guess)  # the first test submission sets the team's best
        mined = dict(guess)
        for g in test_gold:  # flip one label at a time; keep it when the service says improved
            key = (g["id"], g["field"])
            trial = {**mined, key: next(v for v in values[g["field"]] if v != mined[key])}
            if submit(trial):
                mined = trial
    finally:
        server.stop()

    def right(labels: dict[tuple[str, str], str]) -> int:
        return sum(labels[(g["id"], g["field"])] in g["values"] for g in test_gold)

    assert right(mined) <= right(guess), (right(mined), right(guess), len(test_gold))
