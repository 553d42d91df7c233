"""Screenshot the labelling page in headless Chromium (Debian's, driven by Playwright): the
first record of a packet with a label chosen per field and a quote taken, as in
docs/adjudication.md (made from the demo corpus, which `make build` freezes).

    .venv/bin/s8f-duck adjudicate packet --public experiments/demo/out/public.json \
        --rubric examples/rubrics/triage.toml --records 3 --output packet.json
    .venv/bin/s8f-duck adjudicate page packet.json --output label.html
    .venv/bin/python experiments/labelling_page_screenshot.py label.html docs/adjudication-page.png
"""

from __future__ import annotations

import sys
from pathlib import Path

from leaderboard_screenshot import CHROMIUM_ARGS  # beside this script
from playwright.sync_api import sync_playwright


def main(page: Path, png: Path, width: int = 1280) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": width, "height": 760})
        tab.goto(page.resolve().as_uri(), wait_until="load")
        tab.keyboard.press("a")
        tab.keyboard.type("alice")
        tab.keyboard.press("Escape")
        tab.keyboard.press("1")  # the first field's first label, then a quote from the body
        tab.evaluate("""() => {
            const text = document.getElementById("body").firstChild;
            const start = text.data.search(/\\S/);
            const range = document.createRange();
            range.setStart(text, start); range.setEnd(text, Math.min(text.data.length, start + 40));
            getSelection().removeAllRanges(); getSelection().addRange(range);
        }""")
        tab.keyboard.press("e")
        tab.keyboard.press("n")
        tab.keyboard.press("1")
        tab.screenshot(path=str(png))
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
