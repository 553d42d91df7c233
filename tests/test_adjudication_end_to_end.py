"""Adjudication end to end on S8f: a packet of 40 tune and 40 test records with the example
rubric; two model adjudicators with different deterministic behaviours, served by the
loopback OpenAI-compatible test server; one person labelling 5 records in the page in
headless Chromium; then `agree` and `gold` on the three, and `verify` deriving the gold
again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from browser import needs_chromium, open_page
from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_REPORT, needs_s8f, run_cli
from openai_server import openai_server
from test_labelling_page import label_with_the_keyboard, written_page


def model_labels(packet: Path, folder: Path, behaviour: str) -> Path:
    output = folder / f"model-{behaviour}.json"
    with openai_server(behaviour) as server:
        done = run_cli("adjudicate", "model", packet, "--endpoint", server.url, "--model", f"test-{behaviour}",
                       "--output", output)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert len(server.answered) == 80  # one request per record: every answer valid the first time
    document = json.loads(output.read_text(encoding="utf-8"))
    assert document["totals"]["labelled"] == 80 and document["totals"]["prompt_tokens"] > 0
    return output


@needs_s8f
@needs_chromium
def test_two_models_and_a_person_agree_and_make_the_gold(packet: Path, tmp_path: Path, browser: Any) -> None:
    records = json.loads(packet.read_text(encoding="utf-8"))["records"]
    assert [r["split"] for r in records] == ["tune"] * 40 + ["test"] * 40
    models = [model_labels(packet, tmp_path, behaviour) for behaviour in ("keyword", "first")]
    everyone = [*models, *person_labels(packet, tmp_path, browser)]

    agreed = run_cli("adjudicate", "agree", packet, *everyone, "--format", "json", "--resamples", "200")
    assert agreed.returncode == 0, agreed.stderr
    document = json.loads(agreed.stdout)
    assert [(a["kind"], a["labelled"]["kind"]) for a in document["adjudicators"]] == [
        ("model", 80), ("model", 80), ("person", 5)]
    assert {f["statistic"] for f in document["figures"]} == {"alpha", "kappa", "raw agreement"}
    for figure in document["figures"]:
        if figure["value"] is not None:
            assert figure["low"] <= figure["value"] <= figure["high"]

    semantic, report = tmp_path / "semantic.json", tmp_path / "semantic-report.json"
    made = run_cli("adjudicate", "gold", packet, *everyone, "--policy", "majority", "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", semantic, "--report", report, "--resamples", "200",
                   "--allow-weak")  # fmt: skip  # 40 records a split: under the gates' 30 gold records
    assert made.returncode == 0, made.stderr
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    assert bundle["gold"] and {g["split"] for g in bundle["gold"]} == {"tune", "test"}
    gold_report = json.loads(report.read_text(encoding="utf-8"))
    assert all(gold_report["leak_checks"].values())
    assert [(a["name"], a["kind"]) for a in gold_report["adjudicators"]] == [
        ("pat", "person"), ("test-first", "model"), ("test-keyword", "model")]  # by name
    verify = run_cli("verify", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--report", S8F_REPORT,
                     "--semantic", semantic, "--semantic-report", report, "--packet", packet,
                     *[x for p in everyone for x in ("--labels", p)])  # fmt: skip
    assert verify.returncode == 0, verify.stderr


def person_labels(packet: Path, folder: Path, browser: Any) -> list[Path]:
    """A person's labels for the packet's first 5 records, chosen in the page with the
    keyboard (evidence selected in the text), exported as a download."""
    page = written_page(packet, folder)
    rubric = json.loads(packet.read_text(encoding="utf-8"))["rubric"]
    records = json.loads(packet.read_text(encoding="utf-8"))["records"][:5]
    choices = [{"id": r["id"], "digits": {f["name"]: 1 + k % len(f["values"]) for f in rubric}}
               for k, r in enumerate(records)]  # fmt: skip
    context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    tab, seen = open_page(browser, page, context=context)
    tab.keyboard.press("a")
    tab.keyboard.type("pat")
    tab.keyboard.press("Escape")
    label_with_the_keyboard(tab, choices, rubric)
    with tab.expect_download() as waiting:
        tab.keyboard.press("d")
    exported = folder / waiting.value.suggested_filename
    waiting.value.save_as(exported)
    assert seen["errors"] == [] and set(seen["requests"]) == {page.as_uri()}
    context.close()
    return [exported]
