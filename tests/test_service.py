"""`s8f-duck serve` and `submit`: tests against the real server on the loopback, started
as its own process (uvicorn), never a test client inside the test process."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
from conftest import CLI, S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli

pytestmark = needs_s8f
ANSWERS_BYTES = S8F_ANSWERS.read_bytes() if S8F_ANSWERS.is_file() else b""


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]
    db: Path
    tokens: dict[str, str]
    seen: list[bytes]  # every response body, to check that none holds the answers

    def client(self, team: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.tokens[team]}"} if team else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, event_hooks={"response": [self._keep]})

    def _keep(self, response: httpx.Response) -> None:
        response.read()
        self.seen.append(response.content)

    def stop(self, sig: int = signal.SIGINT) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)


def start_server(tmp_path: Path, tokens: dict[str, str], *options: str) -> Server:
    db = tmp_path / "service.duckdb"
    process = subprocess.Popen(
        [str(CLI), "serve", "--answers", str(S8F_ANSWERS), "--public", str(S8F_PUBLIC), "--db", str(db),
         "--teams", str(tmp_path / "teams.json"), "--port", "0", *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "http://" in line, line + process.stderr.read()
    threading.Thread(target=process.stderr.read, daemon=True).start()  # keep draining
    url = line.split()[2].rstrip("/")
    return Server(url, process, db, tokens, [])


@pytest.fixture
def teams(tmp_path: Path) -> dict[str, str]:
    tokens = {}
    for name in ("alpha", "beta"):
        made = run_cli("team", "--teams", tmp_path / "teams.json", name)
        assert made.returncode == 0, made.stderr
        tokens[name] = made.stdout.strip()
    stored = (tmp_path / "teams.json").read_text()
    assert all(token not in stored for token in tokens.values())  # only digests are kept
    return tokens


@pytest.fixture
def server(tmp_path: Path, teams: dict[str, str], request: pytest.FixtureRequest) -> Iterator[Server]:
    options = getattr(request, "param", ())
    running = start_server(tmp_path, teams, *options)
    yield running
    running.stop()
    assert all(ANSWERS_BYTES[:4000] not in body and b"fak-microcontext-answers/1" not in body for body in running.seen)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("baseline") / "submission.json"
    assert run_cli("baseline", "--public", S8F_PUBLIC, "--output", path).returncode == 0
    return json.loads(path.read_bytes())


def stored(db: Path) -> list[dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        cursor = con.execute("SELECT * FROM submissions ORDER BY received_at")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_the_baseline_through_submit_scores_680_of_680(tmp_path: Path, server: Server, baseline: dict[str, Any]) -> None:
    (tmp_path / "token").write_text(server.tokens["alpha"] + "\n")
    (tmp_path / "submission.json").write_text(json.dumps(baseline))
    sent = run_cli("submit", tmp_path / "submission.json", "--url", server.url, "--token-file", tmp_path / "token")
    assert sent.returncode == 0, sent.stderr
    answer = json.loads(sent.stdout)
    assert sent.stdout.startswith('{\n  "')  # indented for people, still JSON
    assert (answer["status"], answer["split"], answer["score"], answer["improved"]) == ("graded", "test", 1.0, True)
    assert "grade" not in answer and "exact_records" not in sent.stdout
    corpus = server.client().get("/corpus")
    assert corpus.headers["x-corpus-sha256"] == baseline["corpus_sha256"] and corpus.content == S8F_PUBLIC.read_bytes()
    board = server.client().get("/leaderboard.json").json()
    assert [(t["team"], t["score"]) for t in board["teams"]] == [("alpha", 1.0)]
    page = server.client().get("/leaderboard")
    assert page.status_code == 200 and "alpha" in page.text
    assert re.search(r"<td>20\d\d-\d\d-\d\d \d\d:\d\d:\d\d UTC</td>", page.text), page.text  # no microseconds
    server.stop()
    (row,) = stored(server.db)
    grade = json.loads(row["grade_json"])
    assert (grade["exact_records"], grade["test_records"], grade["quality_pass"]) == (680, 680, True)
    assert grade["breakdown"]["slices"][0]["slice"] == "state"


def test_tune_submissions_get_the_full_grade(server: Server, baseline: dict[str, Any]) -> None:
    answer = server.client("beta").post("/submissions", params={"split": "tune"}, json=baseline)
    assert answer.status_code == 201
    grade = answer.json()["grade"]
    assert (grade["graded_records"], grade["exact_records"], grade["graded_split"]) == (108, 108, "tune")


def _flip(submission: dict[str, Any], index: int) -> dict[str, Any]:
    probe = json.loads(json.dumps(submission))
    entry = probe["answers"][index]
    entry["state"] = "CLOSED" if entry["state"] == "OPEN" else "OPEN"
    return probe


def _attack(ask: Any, base: dict[str, Any], probes: list[int]) -> dict[int, str]:
    """Flip one guessed state at a time and watch the feedback: a change tells the state."""
    reference = ask(base)
    learned = {}
    for index in probes:
        seen = ask(_flip(base, index))
        if seen != reference:  # the probe's feedback differs: its direction gives the fact
            better = seen > reference
            guess = base["answers"][index]["state"]
            learned[index] = ("CLOSED" if guess == "OPEN" else "OPEN") if better else guess
    return learned


@pytest.mark.parametrize("server", [("--daily-limit", "6")], indirect=True)
def test_the_mining_attack_learns_one_fact_per_submission_from_counts_and_none_from_the_service(
    tmp_path: Path, server: Server, baseline: dict[str, Any]
) -> None:
    truth = {a["id"]: a for a in json.loads(ANSWERS_BYTES)["answers"]}
    base = json.loads(json.dumps(baseline))
    for entry in base["answers"]:
        entry["state"] = "OPEN"  # the attacker's guess for every record
    probes = [i for i, entry in enumerate(base["answers"]) if truth[entry["id"]]["split"] == "test"][:5]

    def plain(submission: dict[str, Any]) -> tuple[int, int]:  # an endpoint that returns the core counts
        path = tmp_path / "probe.json"
        path.write_text(json.dumps(submission))
        run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--output", tmp_path / "g.json")
        core = json.loads((tmp_path / "g.json").read_text())
        return core["exact_records"], -core["false_negative_facts"]

    def service(submission: dict[str, Any]) -> float:  # all the service tells of a test submission
        answer = server.client("alpha").post("/submissions", json=submission)
        assert answer.status_code == 201, answer.text
        return answer.json()["score"]

    from_counts = _attack(plain, base, probes)
    assert len(from_counts) == len(probes) == 5
    assert all(from_counts[i] == truth[base["answers"][i]["id"]]["state"] for i in from_counts)
    from_service = _attack(service, base, probes)
    assert from_service == {}
    over = server.client("alpha").post("/submissions", json=base)  # the seventh of the day
    assert over.status_code == 429 and int(over.headers["retry-after"]) > 0


@pytest.mark.parametrize("server", [("--daily-limit", "100")], indirect=True)
def test_fifty_concurrent_submissions_are_all_graded_and_stored(server: Server, baseline: dict[str, Any]) -> None:
    async def send_all() -> list[int]:
        headers = {"Authorization": f"Bearer {server.tokens['alpha']}"}
        async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=300) as client:
            answers = await asyncio.gather(*(client.post("/submissions", json=baseline) for _ in range(50)))
        return [a.status_code for a in answers]

    assert asyncio.run(send_all()) == [201] * 50
    server.stop()
    rows = stored(server.db)
    assert len(rows) == 50 and all(json.loads(r["grade_json"])["exact_records"] == 680 for r in rows)


def test_kill_9_during_a_submission_keeps_every_earlier_one(
    tmp_path: Path, teams: dict[str, str], baseline: dict[str, Any]
) -> None:
    first = start_server(tmp_path, teams)
    ids = [first.client("alpha").post("/submissions", json=baseline).json()["id"] for _ in range(3)]
    late = threading.Thread(target=lambda: _ignore(lambda: first.client("beta").post("/submissions", json=baseline)))
    late.start()
    time.sleep(0.05)
    first.stop(signal.SIGKILL)
    late.join()
    again = start_server(tmp_path, teams)
    try:
        for submission_id in ids:
            answer = again.client("alpha").get(f"/submissions/{submission_id}")
            assert answer.status_code == 200 and answer.json()["score"] == 1.0
        assert again.client("alpha").post("/submissions", json=baseline).status_code == 201
    finally:
        again.stop()
    assert [r["id"] for r in stored(again.db)][:3] == ids


def _ignore(action: Any) -> None:
    try:
        action()
    except httpx.HTTPError:
        pass


@pytest.mark.parametrize("server", [("--max-bytes", "400KB", "--daily-limit", "20")], indirect=True)
def test_bad_requests_get_their_status_and_a_message(server: Server, baseline: dict[str, Any]) -> None:
    anonymous, alpha, beta = server.client(), server.client("alpha"), server.client("beta")
    assert anonymous.post("/submissions", json=baseline).status_code == 401
    wrong = httpx.post(server.url + "/submissions", json=baseline, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and "token" in wrong.json()["error"]
    broken = alpha.post("/submissions", content=b'{"schema": "x", "answers": [{"id": 5}]')
    assert broken.status_code == 400 and broken.json()["message"].startswith("submission")
    typed = json.loads(json.dumps(baseline))
    typed["answers"][0]["state"] = 7
    wrong_type = alpha.post("/submissions", json=typed)
    assert wrong_type.status_code == 400 and "state" in wrong_type.json()["message"]
    other_corpus = dict(baseline, corpus_sha256="0" * 64)
    assert alpha.post("/submissions", json=other_corpus).status_code == 400
    assert alpha.post("/submissions", params={"split": "holdout"}, json=baseline).status_code == 400
    huge = alpha.post("/submissions", content=b" " * 500_000)
    assert huge.status_code == 413
    mine = alpha.post("/submissions", json=baseline).json()["id"]
    assert beta.get(f"/submissions/{mine}").status_code == 404  # another team's is not found
    for path in ("/submissions/../answers", "/%2e%2e/%2e%2e/etc/passwd", "/corpus/../../answers.json",
                 f"/submissions/{'a' * 32}/../../answers", "/static/../answers", f"/{S8F_ANSWERS}"):  # fmt: skip
        response = anonymous.get(path)
        assert response.status_code in (401, 403, 404), path
    assert anonymous.get("/answers").status_code == 403


@pytest.mark.parametrize("server", [("--release-after", "2020-01-01T00:00:00Z",)], indirect=True)
def test_the_answers_are_served_after_the_release_time(server: Server) -> None:
    released = server.client().get("/answers")
    assert released.status_code == 200 and released.content == ANSWERS_BYTES
    server.seen.clear()  # released on purpose


def test_a_taken_port_or_unusable_teams_file_is_exit_2(tmp_path: Path, server: Server) -> None:
    port = server.url.rsplit(":", 1)[1]
    taken = run_cli("serve", "--answers", S8F_ANSWERS, "--public", S8F_PUBLIC, "--db", tmp_path / "other.duckdb",
                    "--teams", tmp_path / "teams.json", "--port", port)  # fmt: skip
    assert taken.returncode == 2 and "cannot listen" in taken.stderr
    (tmp_path / "bad-teams.json").write_text('[{"team": "x", "token_sha256": "short"}]')
    bad = run_cli("serve", "--answers", S8F_ANSWERS, "--public", S8F_PUBLIC, "--db", tmp_path / "other.duckdb",
                  "--teams", tmp_path / "bad-teams.json")  # fmt: skip
    assert bad.returncode == 2 and "bad-teams.json" in bad.stderr


def test_submissions_sent_at_once_are_graded_together_each_as_alone(
    tmp_path: Path, teams: dict[str, str], baseline: dict[str, Any]
) -> None:
    """Twelve tune submissions (four kinds) sent at once by two teams: graded in batches of
    more than one (the log line of each says how many), each grade the bytes `grade`
    writes for it alone; a log line per submission, with no score."""
    kinds = [baseline, {**baseline, "answers": baseline["answers"][::2]},
             {**baseline, "answers": [{**a, "labels": []} for a in baseline["answers"]]}, {"answers": 5}]  # fmt: skip
    bodies = [json.dumps(kinds[n % 4]).encode() for n in range(12)]
    db = tmp_path / "service.duckdb"
    process = subprocess.Popen(
        [str(CLI), "serve", "--answers", str(S8F_ANSWERS), "--public", str(S8F_PUBLIC), "--db", str(db),
         "--teams", str(tmp_path / "teams.json"), "--port", "0", "--daily-limit", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    url = process.stderr.readline().split()[2].rstrip("/")

    async def send(n: int) -> httpx.Response:
        team = "alpha" if n % 2 else "beta"
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            return await client.post("/submissions?split=tune", content=bodies[n],
                                     headers={"Authorization": f"Bearer {teams[team]}"})  # fmt: skip

    async def all_at_once() -> list[httpx.Response]:
        return list(await asyncio.gather(*(send(n) for n in range(12))))

    try:
        answers = asyncio.run(all_at_once())
    finally:
        process.terminate()
        log = process.stderr.read()
        process.wait()
    assert [a.status_code for a in answers] == [201, 201, 201, 400] * 3, [a.text for a in answers]
    lines = [line for line in log.splitlines() if " tune " in line]
    assert len(lines) == 12 and all(("score" not in line and "0." not in line.split("(")[0]) for line in lines)
    together = [int(re.search(r"(\d+) together", line).group(1)) for line in lines]
    assert max(together) > 1, lines
    for n in range(3):
        path = tmp_path / f"kind-{n}.json"
        path.write_bytes(bodies[n])
        alone = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", path, "--split", "tune", "--format", "json")
        served = answers[n].json()["grade"]
        assert served == json.loads(alone.stdout), n
