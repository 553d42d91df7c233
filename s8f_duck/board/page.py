"""The leaderboard as one self-contained HTML page: the template (package data, with its
styles and script) and the document inlined as JSON; nothing is fetched. The script
draws the table and the charts from that JSON with DOM text nodes, so what a run holds
(its name, its command) is never read as markup."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

DATA_MARK = "__LEADERBOARD_DATA__"
# JSON inside <script type="application/json"> must not end the element ("</script>") or
# open a comment ("<!--"): these characters become \u escapes, which JSON reads back.
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _script_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _ESCAPES[m[0]], text)


def _csp_source(template: str, tag: str) -> str:
    """The Content-Security-Policy source allowing the template's one inline <tag> element
    (the one without attributes): nothing else inline may run or style the page."""
    (body,) = re.findall(rf"<{tag}>(.*?)</{tag}>", template, flags=re.DOTALL)
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"


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
    text = template.replace("__CSP_SCRIPT__", _csp_source(template, "script"))
    text = text.replace("__CSP_STYLE__", _csp_source(template, "style"))
    return text.replace(DATA_MARK, _script_json(data))
