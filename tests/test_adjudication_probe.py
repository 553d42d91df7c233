"""`adjudicate model --probe-order`: each record asked a second time with every field's
labels reversed; the loopback test server is made to change its answer on a chosen set of
records, and the share of changed answers per field is exactly that set's share, in the
model's output, `agree` and the gold report; the labels keep the first answer."""

from __future__ import annotations

import json
from pathlib import Path

from adjudicated import labelled, labels_file
from conftest import S8F_ANSWERS, S8F_PUBLIC, needs_s8f, run_cli
from openai_server import openai_server


@needs_s8f
def test_the_probe_s_share_of_changed_answers_is_what_the_server_was_made_to_change(
    packet: Path, tmp_path: Path
) -> None:
    document = json.loads(packet.read_text(encoding="utf-8"))
    ids = [r["id"] for r in document["records"]]
    biased = set(ids[::4])  # a quarter of the records answer by the labels' order
    labels = tmp_path / "probed.json"
    with openai_server("first", position_bias=biased) as server:
        done = run_cli("adjudicate", "model", packet, "--endpoint", server.url, "--model", "m", "--output", labels,
                       "--probe-order", "--concurrency", "2")  # fmt: skip
        asked = list(server.requests)
    assert done.returncode == 0, done.stderr
    assert len(asked) == 2 * len(ids)  # every record twice
    first_field = document["rubric"][0]
    second = [r for r in asked if r["response_format"]["json_schema"]["schema"]["properties"][first_field["name"]][
        "properties"]["values"]["items"]["enum"] == first_field["values"][::-1]]  # fmt: skip
    assert len(second) == len(ids)  # the probe's requests list the labels reversed
    written = json.loads(labels.read_text(encoding="utf-8"))
    first_label = {f["name"]: f["values"][0] for f in document["rubric"]}
    for label in written["labels"]:  # the labels keep the first answer
        f = next(f for f in document["rubric"] if f["name"] == label["field"])
        assert label["values"] == [first_label[f["name"]] if label["id"] in biased else min(f["values"])]
    share = len(biased) / len(ids)
    for f in document["rubric"]:
        line = f"position probe m, {f['name']}: {len(biased)}/{len(ids)} answers changed with the labels reversed"
        assert line in done.stdout, done.stdout
    agreed = run_cli("adjudicate", "agree", packet, labels, labels_file(tmp_path / "p.json", packet, "p",
                     labelled(packet, lambda k, f: f["values"][0]), kind="person"), "--format", "json",
                     "--resamples", "20")  # fmt: skip
    assert agreed.returncode == 0, agreed.stderr
    probe = json.loads(agreed.stdout)["probe"]
    assert [(p["adjudicator"], p["field"]) for p in probe] == [("m", f["name"]) for f in document["rubric"]]
    assert all(p["share"] == round(share, 6) and p["records"] == len(ids) for p in probe)
    made = run_cli("adjudicate", "gold", packet, labels, tmp_path / "p.json", "--policy", "majority",
                   "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--output", tmp_path / "semantic.json",
                   "--report", tmp_path / "report.json", "--resamples", "20", "--allow-weak")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["probe"] == probe
    assert "position probe m" in made.stdout


@needs_s8f
def test_a_probed_labels_file_resumes_keeping_its_probe_answers_and_one_without_the_probe_is_refused(
    packet: Path, tmp_path: Path
) -> None:
    from test_adjudication_model import without_latency

    document = json.loads(packet.read_text(encoding="utf-8"))
    ids = [r["id"] for r in document["records"]]
    biased = set(ids[::4])
    labels = tmp_path / "probed.json"

    def model(*extra: str | Path, output: Path = labels) -> object:
        return run_cli("adjudicate", "model", packet, "--endpoint", server.url, "--model", "m", "--output", output,
                       "--concurrency", "2", *extra)  # fmt: skip

    with openai_server("first", position_bias=biased) as server:
        assert model("--probe-order").returncode == 0
        whole = labels.read_bytes()
        asked = len(server.requests)
        assert asked == 2 * len(ids)

        again = model("--probe-order")  # complete: nothing sent, the probe's figures read from the file
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == asked and labels.read_bytes() == whole
        assert "nothing asked" in again.stdout
        changed = f"position probe m, {document['rubric'][0]['name']}: {len(biased)}/{len(ids)} answers changed"
        assert changed in again.stdout, again.stdout

        cut = json.loads(whole)  # the last quarter of the records taken out, their probe answers too
        gone = set(ids[-len(ids) // 4:])
        for key in ("labels", "requests", "invalid"):
            cut[key] = [entry for entry in cut[key] if entry["id"] not in gone]
        for key in ("labels", "invalid"):
            cut["probe"][key] = [entry for entry in cut["probe"][key] if entry["id"] not in gone]
        labels.write_text(json.dumps(cut), encoding="utf-8")
        resumed = model("--probe-order")
        assert resumed.returncode == 0, resumed.stderr
        now = server.requests[asked:]
        assert sorted(r["id"] for r in now) == sorted([*gone, *gone])  # each record asked now, and probed: no other
        assert resumed.stdout.splitlines()[-1 - len(document["rubric"])] == (
            f"{2 * len(gone)} requests sent now for {len(gone)} records; "
            f"{2 * (len(ids) - len(gone))} requests of {len(ids) - len(gone)} records done before")
        assert changed in resumed.stdout, resumed.stdout
        assert without_latency(json.loads(labels.read_bytes())) == without_latency(json.loads(whole))
        asked = len(server.requests)

        unprobed = model()  # made with the probe: another input for a run without it
        assert unprobed.returncode == 2 and unprobed.stderr.count("\n") == 1, unprobed.stderr
        assert "with --probe-order" in unprobed.stderr and "without --probe-order" in unprobed.stderr

        plain = tmp_path / "plain.json"
        assert model(output=plain).returncode == 0
        asked = len(server.requests)
        refused = model("--probe-order", output=plain)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert "plain.json: made from packet " in refused.stderr and "without --probe-order" in refused.stderr
        assert len(server.requests) == asked and "probe" not in json.loads(plain.read_bytes())
        forced = model("--probe-order", "--force", output=plain)
        assert forced.returncode == 0, forced.stderr
        assert len(server.requests) == asked + 2 * len(ids) and "probe" in json.loads(plain.read_bytes())
