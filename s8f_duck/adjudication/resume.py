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


def done_records(output: Path, packet_sha256: str, adjudicator: dict[str, Any], ids: list[str],
                 probe_sha256: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Per record id of the packet: its result (journal.py's form, with its probe answer
    where the file was made with --probe-order) as the labels file at output holds it; {}
    when there is none. UnusableInput when the file was made from other inputs (or is no
    labels file): the position probe, and its prompt's digest, are among them."""
    if not replacing.exists(output):
        return {}
    try:
        document = json.loads(output.read_bytes())
    except (OSError, ValueError):
        document = None
    wanted = f"this packet, model and endpoint ({packet_sha256[:12]}…, {adjudicator['model']!r} at " \
             f"{adjudicator['endpoint']}{_with_probe(probe_sha256)}); nothing asked"
    if not isinstance(document, dict) or document.get("schema") != LABELS_SCHEMA:
        raise replacing.refuse(output, "something else (not a labels file of `adjudicate model`)", wanted)
    given = document.get("adjudicator") if isinstance(document.get("adjudicator"), dict) else {}
    probe = document.get("probe") if isinstance(document.get("probe"), dict) else None
    made_with = probe.get("prompt_sha256", "") if probe is not None else None
    if (document.get("packet_sha256") != packet_sha256 or any(given.get(k) != adjudicator[k] for k in BOUND)
            or made_with != probe_sha256):  # fmt: skip
        made = (f"packet {str(document.get('packet_sha256'))[:12]}…, model {given.get('model')!r} at "
                f"{given.get('endpoint')}{_with_probe(made_with)} (name {given.get('name')!r})")  # fmt: skip
        raise replacing.refuse(output, made, wanted)
    try:
        results = _results(document, ids)
        if probe is not None:
            _probed(results, probe)
        return results
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


def _with_probe(prompt_sha256: str | None) -> str:
    if prompt_sha256 is None:
        return ", without --probe-order"
    return f", with --probe-order (probe prompt {str(prompt_sha256)[:12]}…)"


def _probed(results: dict[str, Any], probe: dict[str, Any]) -> None:
    """Each record the probe was asked for (it has a probe request) gets its second answer
    back: {labels} or {invalid}, as model.py journals it."""
    invalid = {entry["id"]: entry["reason"] for entry in probe["invalid"]}
    labels: dict[str, list[dict[str, Any]]] = {}
    for label in probe["labels"]:
        labels.setdefault(label["id"], []).append(label)
    for result in results.values():
        if "labels" not in result or not any(r.get("probe") for r in result["requests"]):
            continue
        if result["id"] in invalid:
            result["probe"] = {"invalid": invalid[result["id"]]}
        else:
            result["probe"] = {"labels": labels.get(result["id"], [])}
