"""Screenshot a leaderboard page in headless Chromium (Debian's, driven by Playwright):
the runs table and the slice charts at a laptop's width, as in README.md.

    .venv/bin/python experiments/leaderboard_screenshot.py PAGE.html docs/leaderboard.png
    .venv/bin/python experiments/leaderboard_screenshot.py PAGE.html docs/leaderboard-400.png 400 --whole

With a width, the page at that width; with --whole, all of it (the cost chart and the
frontier too), not only the table and the slice charts.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


def main(page: Path, png: Path, width: int = 1280, whole: bool = False) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": width, "height": 800})
        tab.goto(page.resolve().as_uri(), wait_until="load")
        if whole:
            tab.screenshot(path=str(png), full_page=True)
        else:
            bottom = tab.evaluate("document.querySelector('#slice-charts').getBoundingClientRect().bottom + scrollY")
            tab.screenshot(path=str(png), clip={"x": 0, "y": 0, "width": width, "height": bottom + 16}, full_page=True)
        browser.close()


if __name__ == "__main__":
    given = [a for a in sys.argv[1:] if a != "--whole"]
    main(Path(given[0]), Path(given[1]), int(given[2]) if len(given) > 2 else 1280, "--whole" in sys.argv)
