"""What an existing labels file at `adjudicate model`'s --output already holds.

A labels file records what made it (packet_sha256; the adjudicator's name, model, endpoint
and prompt_sha256), so no side file is needed: one made from the same inputs gives its
records as done (a complete file asks nothing; a partial one is resumed as from a
journal), one made from others is refused unless --force (nothing is asked then)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from s8f_duck.adjudication.labels import LABELS_SCHEMA
from s8f_duck.safety import replacing
from s8f_duck.safety.errors import UnusableInput

BOUND = ("name", "model", "endpoint", "prompt_sha256")  # of the adjudicator, beside the packet's digest


def done_records(output: Path, packet_sha256: str, adjudicator: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """Per record id of the packet: its result (journal.py's form) as the labels file at
    output holds it; {} when there is none. UnusableInput when the file was made from
    other inputs (or is no labels file)."""
    if not replacing.exists(output):
        return {}
    try:
        document = json.loads(output.read_bytes())
    except (OSError, ValueError):
        document = None
    wanted = f"this packet, model and endpoint ({packet_sha256[:12]}…, {adjudicator['model']!r} at " \
             f"{adjudicator['endpoint']}); nothing asked"
    if not isinstance(document, dict) or document.get("schema") != LABELS_SCHEMA:
        raise replacing.refuse(output, "something else (not a labels file of `adjudicate model`)", wanted)
    given = document.get("adjudicator") if isinstance(document.get("adjudicator"), dict) else {}
    if document.get("packet_sha256") != packet_sha256 or any(given.get(k) != adjudicator[k] for k in BOUND):
        made = (f"packet {str(document.get('packet_sha256'))[:12]}…, model {given.get('model')!r} at "
                f"{given.get('endpoint')} (name {given.get('name')!r})")  # fmt: skip
        raise replacing.refuse(output, made, wanted)
    try:
        return _results(document, ids)
    except (KeyError, TypeError, AttributeError):
        raise UnusableInput(f"{output}: a labels file of this packet and model that cannot be read back; "
                            "remove it, or give --force") from None  # fmt: skip


def _results(document: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The records the file says were asked (each has its requests), with their labels or
    the reason they are invalid."""
    known = set(ids)
    results: dict[str, Any] = {}
    for request in document["requests"]:
        if request["id"] in known:
            results.setdefault(request["id"], {"id": request["id"], "labels": [], "requests": []})
            results[request["id"]]["requests"].append(request)
    for label in document["labels"]:
        if label["id"] in results:
            results[label["id"]]["labels"].append(label)
    for invalid in document["invalid"]:
        if invalid["id"] in results:
            result = results[invalid["id"]]
            results[invalid["id"]] = {"id": result["id"], "invalid": invalid["reason"], "requests": result["requests"]}
    return results
