"""What the browser tests share: Debian's Chromium (/usr/bin/chromium) driven by Playwright,
skipped with the reason when either is missing (the `browser` fixture is conftest's), and a
page opened with everything it logs, requests and asks recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# No first-run work, no background traffic, nothing that needs a GPU or a setuid sandbox.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.is_file(),
    reason=f"no Chromium at {CHROMIUM}: `make install` as root installs it, else `apt-get install -y chromium`",
)


def open_page(browser: Any, page: Path, width: int = 1366, context: Any = None) -> tuple[Any, dict[str, list[str]]]:
    """The page in a new tab (of a new context of the given width, unless one is given),
    with what it logged, requested and asked."""
    context = context or browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)
    seen: dict[str, list[str]] = {"errors": [], "requests": [], "dialogs": []}

    def route(route: Any) -> None:  # every request is recorded; none but the page's own is served
        seen["requests"].append(route.request.url)
        route.continue_() if route.request.url == page.as_uri() else route.abort()

    context.route("**/*", route)
    context.on("request", lambda request: seen["requests"].append(request.url))
    tab = context.new_page()
    tab.on("console", lambda message: seen["errors"].append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: seen["errors"].append(str(error)))
    tab.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    tab.goto(page.as_uri(), wait_until="load")  # the page draws itself as it loads
    return tab, seen
