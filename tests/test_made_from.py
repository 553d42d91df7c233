"""Nothing finished is replaced silently: freeze and adjudicate gold refuse (exit 2, one
line naming the file and what made it) to replace an output made from other inputs, leave
it byte for byte, take the same inputs again, and replace with --force."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from adjudicated import three
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_PUBLIC_SHA256, needs_s8f, run_cli

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "experiments" / "demo" / "gh-issues-demo.json"


def freeze(raw: Path, out: Path, source: str, *extra: str) -> object:
    return run_cli("freeze", raw, "--source", source, "-q", "--public", out / "public.json",
                   "--answers", out / "answers.json", "--report", out / "report.json",
                   "--db", out / "corpus.duckdb", *extra)  # fmt: skip


def contents(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def other_dump(tmp_path: Path) -> Path:
    """Another dump: the demo's records less the last one."""
    import json

    records = json.loads(DEMO.read_bytes())
    path = tmp_path / "other.json"
    path.write_text(json.dumps(records[:-1]), encoding="utf-8")
    return path


def test_freeze_over_another_dumps_outputs_is_refused_and_force_replaces(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = freeze(DEMO, out, "demo")
    assert first.returncode == 0, first.stderr
    before = contents(out)
    assert set(before) == {"public.json", "answers.json", "report.json", "corpus.duckdb"}

    again = freeze(DEMO, out, "demo")  # the same dump again: the same files, no error
    assert again.returncode == 0, again.stderr
    assert contents(out) == {**before, "corpus.duckdb": contents(out)["corpus.duckdb"]}

    before = contents(out)
    other = other_dump(tmp_path)
    refused = freeze(other, out, "demo")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "public.json: made from the dump of 'demo' (public corpus " in refused.stderr
    assert "nothing written (--force replaces it)" in refused.stderr
    assert contents(out) == before  # byte for byte, the database too

    forced = freeze(other, out, "demo", "--force")
    assert forced.returncode == 0, forced.stderr
    assert contents(out)["public.json"] != before["public.json"]
    assert freeze(other, out, "demo").returncode == 0  # now its own outputs


def test_freeze_refuses_a_database_of_another_dump_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert freeze(DEMO, out, "demo").returncode == 0
    for name in ("public.json", "answers.json", "report.json"):
        (out / name).unlink()
    db = (out / "corpus.duckdb").read_bytes()
    refused = freeze(other_dump(tmp_path), out, "demo")
    assert refused.returncode == 2 and "corpus.duckdb: made from the dump of 'demo'" in refused.stderr
    assert (out / "corpus.duckdb").read_bytes() == db and not (out / "public.json").exists()


def gold(packet: Path, labels: list[Path], folder: Path, *extra: str | Path) -> object:
    return run_cli("adjudicate", "gold", packet, *labels, "--policy", "majority", "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", folder / "semantic.json",
                   "--report", folder / "semantic-report.json", "--resamples", "20", "--allow-weak",
                   *extra)  # fmt: skip  (constructed labels: a weak gold, written with its weakness)


@needs_s8f
def test_gold_over_another_bundle_is_refused_and_force_replaces(packet: Path, tmp_path: Path) -> None:
    labels = three(packet, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    assert gold(packet, labels, out).returncode == 0
    before = contents(out)
    assert gold(packet, labels, out).returncode == 0 and contents(out) == before  # the same inputs again

    refused = gold(packet, labels[:2], out)  # another set of labels files
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "semantic.json: made from packet " in refused.stderr and "--force replaces it" in refused.stderr
    assert contents(out) == before

    gates = gold(packet, labels, out, "--min-alpha", "0.5")  # the same labels under other gates
    assert gates.returncode == 2 and gates.stderr.count("\n") == 1, gates.stderr
    assert "gates --min-alpha 0.667 --min-records 30, written weak (--allow-weak)" in gates.stderr, gates.stderr
    assert contents(out) == before

    forced = gold(packet, labels[:2], out, "--force")
    assert forced.returncode == 0, forced.stderr
    assert contents(out) != before


def test_model_on_a_complete_file_asks_nothing_and_a_partial_one_only_the_rest(tmp_path: Path) -> None:
    import json

    from openai_server import openai_server
    from test_adjudication_model import ISSUES, RUBRIC, labelling, model_cli, without_latency

    from s8f_duck.adjudication.packet import PACKET_SCHEMA
    from s8f_duck.adjudication.rubric import read_rubric

    rubric = read_rubric(RUBRIC)  # the packet of test_adjudication_model: eight hand-written records
    records = [{"id": f"issue-{n}", "split": "test", "number": n, "title": title, "body": body}
               for n, (title, body) in enumerate(ISSUES, start=1)]  # fmt: skip
    packet = tmp_path / "packet.json"
    packet.write_text(json.dumps({"schema": PACKET_SCHEMA, "corpus_sha256": "0" * 64, "rubric_sha256": rubric.sha256,
                                  "rubric": rubric.as_json(), "records": records}), encoding="utf-8")  # fmt: skip
    output = tmp_path / "labels.json"
    with openai_server("keyword") as server:
        first = model_cli(*labelling(packet, server.url, output))
        assert first.returncode == 0, first.stderr
        assert first.stdout.splitlines()[-1] == f"{len(ISSUES)} requests sent now for {len(ISSUES)} records; " \
                                               "0 requests of 0 records done before"
        whole = output.read_bytes()
        asked = len(server.requests)
        assert asked == len(ISSUES)

        again = model_cli(*labelling(packet, server.url, output))  # complete: nothing is sent
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == asked and output.read_bytes() == whole
        assert "nothing asked" in again.stdout
        assert again.stdout.splitlines()[-1] == f"0 requests sent now for 0 records; " \
                                                f"{len(ISSUES)} requests of {len(ISSUES)} records done before"

        document = json.loads(whole)  # half of it: the records 5 to 8 taken out
        kept = {f"issue-{n}" for n in range(1, 5)}
        for key in ("labels", "requests", "invalid"):
            document[key] = [entry for entry in document[key] if entry["id"] in kept]
        output.write_text(json.dumps(document), encoding="utf-8")
        half = model_cli(*labelling(packet, server.url, output))
        assert half.returncode == 0, half.stderr
        assert sorted(r["id"] for r in server.requests[asked:]) == [f"issue-{n}" for n in range(5, 9)]
        assert half.stdout.splitlines()[-1] == "4 requests sent now for 4 records; 4 requests of 4 records done before"
        assert without_latency(json.loads(output.read_bytes())) == without_latency(json.loads(whole))
        asked = len(server.requests)

        other = model_cli(*labelling(packet, server.url, output, model="another-model"))
        assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
        assert "labels.json: made from packet " in other.stderr and "model 'test-model'" in other.stderr
        assert len(server.requests) == asked and not Path(f"{output}.journal").exists()
        before = output.read_bytes()
        forced = model_cli(*labelling(packet, server.url, output, "--force", model="another-model"))
        assert forced.returncode == 0, forced.stderr
        assert len(server.requests) == asked + len(ISSUES) and output.read_bytes() != before


@needs_s8f
def test_serve_on_a_store_of_another_corpus_or_scoring_is_exit_2(packet: Path, tmp_path: Path) -> None:
    from adjudicated import made_gold
    from test_service import start_server

    (tmp_path / "gold").mkdir()
    semantic = made_gold(packet, tmp_path / "gold")
    made = run_cli("team", "--teams", tmp_path / "teams.json", "alpha")
    assert made.returncode == 0, made.stderr
    scored = ("--semantic", str(semantic), "--ladder-step", "0.05")  # a step this small gold allows
    server = start_server(tmp_path, {"alpha": made.stdout.strip()}, *scored)
    server.stop()
    store = tmp_path / "service.duckdb"

    def serve(public: Path, answers: Path, *extra: str | Path) -> object:
        return run_cli("serve", "--answers", answers, "--public", public, "--db", store,
                       "--teams", tmp_path / "teams.json", "--port", "0", *extra)  # fmt: skip

    out = tmp_path / "demo"
    assert freeze(DEMO, out, "demo").returncode == 0
    other = serve(out / "public.json", out / "answers.json")
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert f"{store}: the store of public corpus {S8F_PUBLIC_SHA256}" in other.stderr
    unscored = serve(S8F_PUBLIC, S8F_ANSWERS)  # the same corpus without --semantic: another scoring
    assert unscored.returncode == 2 and "semantic bundle " in unscored.stderr, unscored.stderr
    import duckdb

    with duckdb.connect(str(store), read_only=True) as con:  # still bound as it first was
        bound = con.execute("SELECT public_sha256, semantic_sha256 FROM store_binding").fetchall()
    assert bound == [(S8F_PUBLIC_SHA256, hashlib.sha256(semantic.read_bytes()).hexdigest())]
    again = start_server(tmp_path, {"alpha": made.stdout.strip()}, *scored)  # its own binding: served
    again.stop()


@needs_s8f
def test_packet_over_another_packet_is_refused_and_force_replaces(tmp_path: Path) -> None:
    rubric = REPO / "examples" / "rubrics" / "triage.toml"

    def packet(records: str, *extra: str) -> object:
        return run_cli("adjudicate", "packet", "--public", S8F_PUBLIC, "--rubric", rubric, "--records", records,
                       "--output", tmp_path / "packet.json", *extra)  # fmt: skip

    assert packet("3").returncode == 0
    before = (tmp_path / "packet.json").read_bytes()
    assert packet("3").returncode == 0 and (tmp_path / "packet.json").read_bytes() == before
    refused = packet("4")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "packet.json: made from corpus 0740c911815e…" in refused.stderr
    assert (tmp_path / "packet.json").read_bytes() == before
    assert packet("4", "--force").returncode == 0 and (tmp_path / "packet.json").read_bytes() != before
