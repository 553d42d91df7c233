"""`s8f-duck adjudicate page` in a real headless browser (Debian's Chromium through
Playwright): untrusted bodies shown as text and nothing of them run; no console error, no
request but the page's own file; one person labelling five S8f records with the keyboard
(evidence selected in the text with the mouse), the work kept across a reload, and the
export a labels file that `agree` takes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from adjudicated import RUBRIC, labelled, labels_file
from browser import needs_chromium, open_page
from conftest import needs_s8f, run_cli

from s8f_duck.adjudication.labels import read_labels
from s8f_duck.adjudication.packet import read_packet
from s8f_duck.adjudication.rubric import read_rubric

pytestmark = needs_chromium

HOSTILE = [
    ("<script>window.pwned = 1</script>", "<img src=x onerror=\"window.pwned = 1\"> and </textarea> too"),
    ("</textarea><b>bold?</b>", "</script><script>window.pwned = 1</script>\n<!-- a comment -->"),
    ("<iframe src=\"https://example.com\"></iframe>", "<a href=\"javascript:window.pwned=1\">x</a> \u2028 end"),
]


def hostile_packet(folder: Path) -> Path:
    rubric = read_rubric(RUBRIC)
    records = [{"id": f"issue-{k}", "split": "test", "number": k, "title": title, "body": body}
               for k, (title, body) in enumerate(HOSTILE, start=1)]  # fmt: skip
    path = folder / "hostile-packet.json"
    path.write_text(json.dumps({"schema": "s8f-duck-adjudication-packet/1", "corpus_sha256": "0" * 64,
                                "rubric_sha256": rubric.sha256, "rubric": rubric.as_json(), "records": records}),
                    encoding="utf-8")  # fmt: skip
    return path


def written_page(packet: Path, folder: Path) -> Path:
    page = folder / "label.html"
    done = run_cli("adjudicate", "page", packet, "--output", page)
    assert done.returncode == 0, done.stderr
    return page


def test_markup_in_a_record_shows_as_text_and_runs_nothing(browser: Any, tmp_path: Path) -> None:
    page = written_page(hostile_packet(tmp_path), tmp_path)
    html = page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "<script>window.pwned" not in html and "</textarea><b>" not in html  # escaped in the inlined JSON
    tab, seen = open_page(browser, page)
    for k, (title, body) in enumerate(HOSTILE):
        if k:
            tab.keyboard.press("j")
        assert tab.locator("#title").text_content() == title
        assert tab.locator("#body").text_content() == body
        assert tab.locator("#title img, #body img, #body script, #title b, iframe, a[href]").count() == 0
    assert tab.evaluate("typeof window.pwned") == "undefined"
    assert seen["errors"] == [] and seen["dialogs"] == []
    assert set(seen["requests"]) == {page.as_uri()}  # nothing fetched: no image, no frame
    tab.context.close()


def select_in_body(tab: Any) -> str:
    """Select, with the mouse, up to 12 characters of the body's first line that has text;
    return what was selected."""
    start, end, box = tab.evaluate("""() => {
        const text = document.getElementById("body").firstChild;
        const value = text.data;
        const start = value.search(/\\S/);
        let end = start;
        while (end < value.length && end - start < 12 && value[end] !== "\\n") end += 1;
        while (end > start + 1 && /\\s/.test(value[end - 1])) end -= 1;
        const range = document.createRange();
        range.setStart(text, start); range.setEnd(text, start + 1);
        const a = range.getBoundingClientRect();
        range.setStart(text, end - 1); range.setEnd(text, end);
        const b = range.getBoundingClientRect();
        return [start, end, [a.left + 1, (a.top + a.bottom) / 2, b.right - 0.5, (b.top + b.bottom) / 2]];
    }""")
    tab.mouse.move(box[0], box[1])
    tab.mouse.down()
    tab.mouse.move(box[2], box[3], steps=8)
    tab.mouse.up()
    selected = tab.evaluate("() => window.getSelection().toString()")
    body = tab.locator("#body").text_content()
    assert selected == body[start:end]
    return selected


def label_with_the_keyboard(tab: Any, choices: list[dict[str, Any]], rubric: list[dict[str, Any]]) -> None:
    """Each choice: the record's id, and per field the digit to press; the field needing
    evidence gets the text selected in the body."""
    for n, choice in enumerate(choices):
        if n:
            tab.keyboard.press("j")
        assert tab.locator("#record-meta").text_content().startswith(choice["id"] + " ")
        for f, field in enumerate(rubric):
            if f:
                tab.keyboard.press("n")
            tab.keyboard.press(str(choice["digits"][field["name"]]))
            if field["evidence"]:
                choice.setdefault("evidence", {})[field["name"]] = select_in_body(tab)
                tab.keyboard.press("e")
        tab.keyboard.press("n")  # back to the first field


@needs_s8f
def test_a_person_labels_five_records_with_the_keyboard_and_exports(
    browser: Any, packet: Path, tmp_path: Path
) -> None:
    page = written_page(packet, tmp_path)
    document = json.loads(packet.read_text(encoding="utf-8"))
    rubric = document["rubric"]
    with_body = [r for r in document["records"] if r["body"].strip()][:5]
    assert with_body == document["records"][:5]  # the first five records all have a body
    choices = [{"id": r["id"], "digits": {f["name"]: 1 + (k + i) % len(f["values"]) for i, f in enumerate(rubric)}}
               for k, r in enumerate(with_body)]  # fmt: skip

    context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    tab, seen = open_page(browser, page, context=context)
    tab.keyboard.press("a")
    tab.keyboard.type("alice")
    tab.keyboard.press("Enter")
    label_with_the_keyboard(tab, choices, rubric)
    assert tab.locator("#progress").text_content() == f"5 of {len(document['records'])} records complete"

    tab.reload(wait_until="load")  # the work is kept in the browser
    assert tab.locator("#progress").text_content() == f"5 of {len(document['records'])} records complete"
    assert tab.locator("#name").input_value() == "alice"
    with tab.expect_download() as waiting:
        tab.keyboard.press("d")
    download = waiting.value
    assert download.suggested_filename == "alice.labels.json"
    exported = tmp_path / "alice.labels.json"
    download.save_as(exported)
    assert seen["errors"] == [] and seen["dialogs"] == []
    assert set(seen["requests"]) == {page.as_uri()}
    context.close()

    labels = read_labels(exported, read_packet(packet))  # what agree and gold check, passed
    assert (labels.adjudicator, labels.kind) == ("alice", "person")
    expected = {(c["id"], f["name"]): (f["values"][c["digits"][f["name"]] - 1],) for c in choices for f in rubric}
    assert labels.labels == expected
    written = json.loads(exported.read_text(encoding="utf-8"))
    assert written["packet_sha256"] == hashlib.sha256(packet.read_bytes()).hexdigest()
    quotes = {(e["id"], e["field"]): e["evidence"] for e in written["labels"] if e["evidence"]}
    assert quotes == {(c["id"], name): [q] for c in choices for name, q in c["evidence"].items()}

    other = labels_file(tmp_path / "model.json", packet, "model-a", labelled(packet, lambda k, f: f["values"][0]))
    agreed = run_cli("adjudicate", "agree", packet, exported, other, "--format", "json", "--resamples", "20")
    assert agreed.returncode == 0, agreed.stderr
    assert json.loads(agreed.stdout)["adjudicators"][0]["labelled"] == {f["name"]: 5 for f in rubric}


@pytest.mark.parametrize("case", ["missing", "not a packet", "output is the packet"])
def test_bad_input_is_refused_and_nothing_written(tmp_path: Path, case: str) -> None:
    packet = hostile_packet(tmp_path)
    output = tmp_path / "label.html"
    if case == "missing":
        packet = tmp_path / "nowhere.json"
    elif case == "not a packet":
        packet.write_text('{"schema": "fak-microcontext-answers/1"}', encoding="utf-8")
    else:
        output = packet
    before = packet.read_bytes() if packet.exists() else None
    done = run_cli("adjudicate", "page", packet, "--output", output)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "label.html").exists()
    assert (packet.read_bytes() if packet.exists() else None) == before


@needs_s8f
def test_work_is_kept_per_name_and_the_export_says_what_is_left(browser: Any, packet: Path, tmp_path: Path) -> None:
    """A second person in the same browser starts with their own, empty, work; the first
    finds theirs again; R twice starts afresh; the export says how many records are left."""
    page = written_page(packet, tmp_path)
    document = json.loads(packet.read_text(encoding="utf-8"))
    rubric, total = document["rubric"], len(document["records"])
    choices = [{"id": r["id"], "digits": {f["name"]: 1 for f in rubric}} for r in document["records"][:2]]
    tab, seen = open_page(browser, page)
    status = tab.locator("#status")
    tab.keyboard.press("1")  # no name yet: nothing is labelled, the name is asked for
    assert "type your name first" in status.text_content() and tab.locator("#progress").text_content().startswith("0 ")
    tab.keyboard.press("Escape")
    tab.locator("body").click(position={"x": 5, "y": 5})

    def name(who: str) -> None:
        tab.keyboard.press("a")
        tab.keyboard.press("Control+a")
        tab.keyboard.type(who)
        tab.keyboard.press("Enter")

    name("alice")
    label_with_the_keyboard(tab, choices, rubric)
    assert tab.locator("#progress").text_content() == f"2 of {total} records complete"
    with tab.expect_download():
        tab.keyboard.press("d")
    said = status.text_content()
    assert f"exported {2 * len(rubric)} labels of 2 of {total} records; {total - 2} records are not complete yet" in said

    tab.keyboard.press("k")  # back to the first record
    name("bob")  # the same browser, another person: their own work, empty
    assert tab.locator("#progress").text_content() == f"0 of {total} records complete"
    assert "labelling as bob" in status.text_content()
    tab.reload(wait_until="load")  # opens with the last name used here, and says whose work it is
    assert tab.locator("#name").input_value() == "bob" and "someone else? press a" in status.text_content()
    name("alice")  # alice's work is still hers
    assert tab.locator("#progress").text_content() == f"2 of {total} records complete"
    tab.keyboard.press("R")
    assert "press R again to forget alice's labels" in status.text_content()
    tab.keyboard.press("R")
    assert tab.locator("#progress").text_content() == f"0 of {total} records complete"
    tab.reload(wait_until="load")
    assert tab.locator("#name").input_value() == "alice"
    assert tab.locator("#progress").text_content() == f"0 of {total} records complete"
    assert seen["errors"] == [] and seen["dialogs"] == []
    tab.context.close()
