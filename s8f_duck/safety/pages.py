"""What a self-contained HTML page needs to hold untrusted data safely: the data as JSON
inside <script type="application/json"> that cannot end the element, and the
Content-Security-Policy hashes that let only the page's own inline script and style run.
Used by the leaderboard page and the labelling page."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

# JSON inside <script type="application/json"> must not end the element ("</script>") or
# open a comment ("<!--"): these characters become \u escapes, which JSON reads back.
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """The value as JSON safe to put between <script type="application/json"> tags."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _ESCAPES[m[0]], text)


def csp_source(template: str, tag: str) -> str:
    """The Content-Security-Policy source allowing the template's one inline <tag> element
    (the one without attributes): nothing else inline may run or style the page."""
    (body,) = re.findall(rf"<{tag}>(.*?)</{tag}>", template, flags=re.DOTALL)
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"
