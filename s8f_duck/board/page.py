"""The leaderboard as one self-contained HTML page: the template (package data, with its
styles and script) and the document inlined as JSON; nothing is fetched. The script
draws the table and the charts from that JSON with DOM text nodes, so what a run holds
(its name, its command) is never read as markup."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from s8f_duck.safety.pages import csp_source, script_json

DATA_MARK = "__LEADERBOARD_DATA__"
def _link(path: str | None, base: Path) -> str | None:
    """A run file's URL relative to the page's directory, so the page and the runs can move together."""
    if path is None:
        return None
    return quote(Path(os.path.relpath(os.path.abspath(path), base)).as_posix())


def render(board: dict[str, Any], html_path: Path) -> str:
    template = resources.files("s8f_duck.data").joinpath("leaderboard.html").read_text(encoding="utf-8")
    base = Path(os.path.abspath(html_path)).parent
    runs = [{**run, "files": {k: _link(p, base) for k, p in run["files"].items()}} for run in board["runs"]]
    data = {**board, "runs": runs, "runs_database": Path(board["runs_database"]).name}
    text = template.replace("__CSP_SCRIPT__", csp_source(template, "script"))
    text = text.replace("__CSP_STYLE__", csp_source(template, "style"))
    return text.replace(DATA_MARK, script_json(data))
