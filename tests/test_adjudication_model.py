"""`s8f-duck adjudicate model`: the real command against the loopback OpenAI-compatible
server of openai_server.py: structured output asked for, bad answers asked again once then
marked invalid, 429s retried by the client, a run killed with SIGKILL resumed from its
journal without asking twice, tokens kept, the output read as a labels file, bad input
refused, and the API key sent but never stored."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, REPO, S8F_PUBLIC, needs_s8f, run_cli
from openai_server import openai_server

from s8f_duck.adjudication.labels import read_labels
from s8f_duck.adjudication.packet import PACKET_SCHEMA, read_packet
from s8f_duck.adjudication.prompt import answer_schema
from s8f_duck.adjudication.rubric import read_rubric

RUBRIC = REPO / "examples" / "rubrics" / "triage.toml"
ISSUES = [
    ("Crash on start with an empty config", "The tool panics when the config file is empty.\nSteps: run it."),
    ("Add support for YAML input", "It would be nice to read YAML as well as JSON."),
    ("How do I set the output directory?", "I could not find it in the docs."),
    ("Typo in README", "The README says 'teh' instead of 'the'."),
    ("Bump duckdb to 1.4", "Routine maintenance: the new version is out."),
    ("Something feels off", ""),
    ("Refactor the loader", "Split load.py; the tests should still pass."),
    ("Wrong total in the report", "The report's total is wrong when a record repeats."),
]


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "NO_PROXY": "127.0.0.1", **extra}


def model_cli(*args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), "adjudicate", "model", *map(str, args)], capture_output=True, text=True,
                          env=environment(**env), check=False, timeout=300)  # fmt: skip


def labelling(packet: Path, url: str, output: Path, *extra: str | Path, model: str = "test-model") -> list[str | Path]:
    return [packet, "--endpoint", url, "--model", model, "--output", output, *extra]


@pytest.fixture
def packet(tmp_path: Path) -> Path:
    """A hand-written packet of eight records, with the example rubric."""
    rubric = read_rubric(RUBRIC)
    records = [{"id": f"issue-{n}", "split": "test", "number": n, "title": title, "body": body}
               for n, (title, body) in enumerate(ISSUES, start=1)]  # fmt: skip
    document = {"schema": PACKET_SCHEMA, "corpus_sha256": "0" * 64, "rubric_sha256": rubric.sha256,
                "rubric": rubric.as_json(), "records": records}  # fmt: skip
    path = tmp_path / "packet.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


def loaded(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def without_latency(document: dict[str, Any]) -> dict[str, Any]:
    """The file but the times, which vary from run to run (everything else is the answers')."""
    requests = [{k: v for k, v in q.items() if k != "latency_ms"} for q in document["requests"]]
    totals = {k: v for k, v in document["totals"].items() if k != "latency_ms"}
    return {**document, "requests": requests, "totals": totals}


def test_structured_output_is_asked_for_and_the_labels_file_is_read_as_any(packet: Path, tmp_path: Path) -> None:
    output = tmp_path / "labels.json"
    with openai_server("keyword") as server:
        done = model_cli(*labelling(packet, server.url, output, "--name", "kw"))
        assert done.returncode == 0, done.stderr
    assert len(server.requests) == len(ISSUES)  # one request per record
    schema = answer_schema(read_packet(packet).rubric)
    for request in server.requests:
        assert request["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "labels", "schema": schema, "strict": True},
        }
        assert request["model"] == "test-model"
    assert schema["properties"]["kind"]["properties"]["values"]["maxItems"] == 1
    assert schema["additionalProperties"] is False and schema["required"] == ["kind", "actionable", "needs_repository"]
    document = loaded(output)
    assert document["adjudicator"]["kind"] == "model" and document["adjudicator"]["name"] == "kw"
    assert document["adjudicator"]["model"] == "test-model" and document["adjudicator"]["endpoint"] == server.url
    assert len(document["adjudicator"]["prompt_sha256"]) == 64
    labels = read_labels(output, read_packet(packet))
    assert len(labels.labels) == 3 * len(ISSUES) and document["invalid"] == []
    assert labels.labels[("issue-1", "kind")] == ("bug",)
    assert [label["id"] for label in document["labels"]][::3] == [f"issue-{n}" for n in range(1, len(ISSUES) + 1)]
    assert not Path(f"{output}.journal").exists()
    assert "wrote the labels of 8 records" in done.stdout and "prompt tokens" in done.stdout


def test_tokens_and_times_of_every_request_are_kept(packet: Path, tmp_path: Path) -> None:
    output = tmp_path / "labels.json"
    with openai_server("first") as server:
        assert model_cli(*labelling(packet, server.url, output)).returncode == 0
    document = loaded(output)
    assert len(document["requests"]) == len(ISSUES)
    for request, (title, body) in zip(document["requests"], ISSUES):
        assert request["prompt_tokens"] > (len(title) + len(body)) // 4 and request["completion_tokens"] > 0
        assert request["latency_ms"] >= 0 and request["attempt"] == 1 and request["valid"] is True
    totals = document["totals"]
    assert totals["prompt_tokens"] == sum(q["prompt_tokens"] for q in document["requests"])
    assert totals["completion_tokens"] == sum(q["completion_tokens"] for q in document["requests"])
    assert (totals["records"], totals["labelled"], totals["invalid"], totals["requests"]) == (8, 8, 0, 8)


@pytest.mark.parametrize("bad", ["json", "label", "quote"])
def test_a_bad_answer_is_asked_again_once_then_the_record_is_invalid(packet: Path, tmp_path: Path, bad: str) -> None:
    output = tmp_path / "labels.json"
    with openai_server("keyword", bad_once={"issue-2"}, bad_always={"issue-3"}, bad=bad) as server:
        done = model_cli(*labelling(packet, server.url, output))
        assert done.returncode == 0, done.stderr
    asked = [r["id"] for r in server.requests]
    assert asked.count("issue-2") == 2 and asked.count("issue-3") == 2 and len(asked) == len(ISSUES) + 2
    second = next(r for r in server.requests if r["id"] == "issue-3" and r["attempt"] == 2)
    assert second["answered"]  # the second ask tells the model why (a second user message)
    document = loaded(output)
    assert [i["id"] for i in document["invalid"]] == ["issue-3"]
    assert {label["id"] for label in document["labels"]} == {f"issue-{n}" for n in range(1, 9)} - {"issue-3"}
    tries = [(q["id"], q["attempt"], q["valid"]) for q in document["requests"] if q["id"] in ("issue-2", "issue-3")]
    assert tries == [("issue-2", 1, False), ("issue-2", 2, True), ("issue-3", 1, False), ("issue-3", 2, False)]
    assert document["invalid"][0]["reason"] == document["requests"][4]["reason"]
    read_labels(output, read_packet(packet))


@pytest.mark.parametrize("status", [429, 500])
def test_a_429_or_500_is_retried_by_the_client_and_the_run_succeeds(packet: Path, tmp_path: Path, status: int) -> None:
    output = tmp_path / "labels.json"
    with openai_server("keyword", status={1: status, 2: status}) as server:
        done = model_cli(*labelling(packet, server.url, output, "--concurrency", "1", "--max-retries", "2"))
        assert done.returncode == 0, done.stderr
    assert [r["id"] for r in server.requests[:3]] == ["issue-1"] * 3  # asked again after each refusal
    assert [r["answered"] for r in server.requests[:3]] == [False, False, True]
    document = loaded(output)
    assert document["requests"][0]["retries"] == 2 and len(document["requests"]) == len(ISSUES)
    assert len(document["labels"]) == 3 * len(ISSUES)


def test_a_run_killed_halfway_resumes_without_asking_again(packet: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole.json"
    with openai_server("keyword") as server:
        assert model_cli(*labelling(packet, server.url, whole, "--name", "kw")).returncode == 0
    output = tmp_path / "labels.json"
    journal = Path(f"{output}.journal")
    with openai_server("keyword", hang_after=3) as server:
        process = subprocess.Popen([str(CLI), "adjudicate", "model", *map(str, labelling(packet, server.url, output,
                                    "--name", "kw", "--concurrency", "2"))],
                                   env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + 60
        while not (journal.exists() and journal.read_bytes().count(b"\n") == 1 + 3):
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()  # type: ignore[union-attr]
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert not output.exists() and oct(journal.stat().st_mode & 0o777) == "0o600"
        first_run = [r["id"] for r in server.answered]
        assert len(first_run) == 3
        # The resumed run bears a key of its own, and only its requests are answered: a request
        # of the killed run that reaches the server late (a loaded machine) is held, not answered.
        server.only_key = "resumed-run"
        server.hang_after = None
        done = model_cli(*labelling(packet, server.url, output, "--name", "kw", "--concurrency", "2",
                                    "--api-key-env", "RESUMED_KEY"), RESUMED_KEY="resumed-run")  # fmt: skip
        assert done.returncode == 0, done.stderr
        answered = [r["id"] for r in server.answered]
        second = [r for r in server.requests if r["headers"].get("authorization") == "Bearer resumed-run"]
    assert sorted(answered) == sorted(f"issue-{n}" for n in range(1, 9))  # each record answered once in all
    resumed = [r["id"] for r in second]
    assert len(resumed) == len(ISSUES) - 3 and not set(resumed) & set(first_run)  # nothing answered is asked again
    assert not journal.exists()
    ours, theirs = without_latency(loaded(output)), without_latency(loaded(whole))
    assert ours["adjudicator"].pop("endpoint") != theirs["adjudicator"].pop("endpoint")  # another port
    assert ours == theirs  # the same labels, requests and totals as the run never stopped


def test_an_endpoint_failing_after_retries_is_named_and_the_journal_kept(packet: Path, tmp_path: Path) -> None:
    output = tmp_path / "labels.json"
    journal = Path(f"{output}.journal")
    with openai_server("keyword", hang_after=2, hang_seconds=0.1) as server:  # then 503s
        done = model_cli(*labelling(packet, server.url, output, "--max-retries", "1", "--concurrency", "1"))
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert f"--endpoint {server.url} answered 503" in done.stderr
        assert f"the 2 records done are kept in {journal} for a re-run" in done.stderr
        assert [r["id"] for r in server.requests] == ["issue-1", "issue-2", "issue-3", "issue-3"]
        before = journal.read_bytes()
        assert before.count(b"\n") == 1 + 2 and not output.exists()
        done = model_cli(*labelling(packet, server.url, output, model="another-model"))
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert f"{journal}: a journal of another run (model 'test-model', this run's 'another-model')" in done.stderr
        assert journal.read_bytes() == before and not output.exists()
        server.hang_after = None
        done = model_cli(*labelling(packet, server.url, output))
        assert done.returncode == 0, done.stderr
        assert sorted(r["id"] for r in server.requests[4:]) == [f"issue-{n}" for n in range(3, 9)]
    assert not journal.exists() and len(loaded(output)["labels"]) == 3 * len(ISSUES)


def test_an_unreachable_endpoint_is_named_and_nothing_is_left(packet: Path, tmp_path: Path) -> None:
    output = tmp_path / "labels.json"
    with openai_server("keyword") as server:
        url = server.url  # closed when the block ends: nothing listens there after
    done = model_cli(*labelling(packet, url, output, "--max-retries", "1"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"--endpoint {url}: unreachable after 1 retries" in done.stderr and "no record was done" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["packet.json"]  # no journal of nothing


def test_the_api_key_is_sent_as_the_bearer_token_and_stored_nowhere(packet: Path, tmp_path: Path) -> None:
    output = tmp_path / "labels.json"
    secret = "sk-test-" + hashlib.sha256(b"secret").hexdigest()[:24]
    with openai_server("keyword") as server:
        done = model_cli(*labelling(packet, server.url, output, "--api-key-env", "TEST_KEY", "-v"), TEST_KEY=secret)
        assert done.returncode == 0, done.stderr
        assert model_cli(*labelling(packet, server.url, tmp_path / "b.json")).returncode == 0
    keys = [r["headers"]["authorization"] for r in server.requests]
    assert keys[: len(ISSUES)] == [f"Bearer {secret}"] * len(ISSUES)
    assert set(keys[len(ISSUES) :]) == {"Bearer none"}  # without the option, a placeholder
    assert secret not in done.stdout + done.stderr
    assert all(secret.encode() not in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert "adjudicate model: 8/8 records, 0 invalid" in done.stderr  # -v: a line per record done


BAD_INPUT = {
    "an unusable packet": (lambda p, t: [t / "missing.json"], {}, "missing.json: cannot read"),
    "output is the packet": (lambda p, t: ["--output", p], {}, "PACKET"),
    "concurrency 0": (lambda p, t: ["--concurrency", "0"], {}, "--concurrency 0: need at least 1"),
    "a bad endpoint": (lambda p, t: ["--endpoint", "ftp://example.org/v1"], {}, "--endpoint ftp://example.org/v1"),
    "no host": (lambda p, t: ["--endpoint", "http:///v1"], {}, "--endpoint http:///v1"),
    "a key in the URL": (lambda p, t: ["--endpoint", "http://u:k@127.0.0.1:9/v1"], {}, "without credentials"),
    "an absent key variable": (lambda p, t: ["--api-key-env", "NO_SUCH_KEY_VAR"], {}, "NO_SUCH_KEY_VAR"),
    "an empty key variable": (lambda p, t: ["--api-key-env", "EMPTY_KEY"], {"EMPTY_KEY": ""}, "EMPTY_KEY"),
}


@pytest.mark.parametrize("case", BAD_INPUT)
def test_bad_input_is_refused_in_one_line_and_nothing_is_written(packet: Path, tmp_path: Path, case: str) -> None:
    change, env, message = BAD_INPUT[case]
    output = tmp_path / "out" / "labels.json"
    extra = change(packet, tmp_path)
    args = labelling(packet, "http://127.0.0.1:9/v1", output)
    if extra and not str(extra[0]).startswith("--"):
        args[0] = extra.pop(0)
    before = packet.read_bytes()
    done = model_cli(*args, *extra, **env)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("s8f-duck adjudicate model: error:")
    assert message in done.stderr, done.stderr
    assert packet.read_bytes() == before and not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["packet.json"]


@needs_s8f
def test_two_model_adjudicators_label_an_s8f_packet_and_agree_reads_them(tmp_path: Path) -> None:
    packet = tmp_path / "packet.json"
    made = run_cli("adjudicate", "packet", "--public", S8F_PUBLIC, "--rubric", RUBRIC, "--records", "40",
                   "--output", packet)  # fmt: skip
    assert made.returncode == 0, made.stderr
    outputs = []
    for behaviour in ("keyword", "first"):
        output = tmp_path / f"{behaviour}.json"
        with openai_server(behaviour) as server:
            done = model_cli(*labelling(packet, server.url, output, "--name", behaviour, "--concurrency", "8"))
            assert done.returncode == 0, done.stderr
        document = loaded(output)
        assert document["invalid"] == [] and len(document["labels"]) == 3 * 80
        outputs.append(output)
    agreed = run_cli("adjudicate", "agree", packet, *outputs, "--format", "json", "--resamples", "50")
    assert agreed.returncode == 0, agreed.stderr
    figures = json.loads(agreed.stdout)
    assert [a["name"] for a in figures["adjudicators"]] == ["keyword", "first"]
    assert all(count == 80 for a in figures["adjudicators"] for count in a["labelled"].values())
