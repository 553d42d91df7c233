"""`s8f-duck adjudicate page`: the labelling page for people, one self-contained HTML file
(the template s8f_duck/data/labelling.html, with the packet inlined as JSON) that works
offline: nothing is fetched or sent, a Content-Security-Policy lets only its own script
and style run, and the records' text is set as text, never read as markup. The work is
kept in the browser's storage; its export is a labels file (labels.py)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from s8f_duck.adjudication.packet import Packet, read_packet
from s8f_duck.safety import arguments
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.pages import csp_source, script_json
from s8f_duck.safety.writers import write_text

DATA_MARK = "__PACKET_DATA__"


def render(packet: Packet) -> str:
    """The page for a packet: its records, rubric and digest (what the export binds)."""
    template = resources.files("s8f_duck.data").joinpath("labelling.html").read_text(encoding="utf-8")
    data = {"packet_sha256": packet.sha256, "rubric": packet.rubric.as_json(),
            "records": [{k: r.get(k) for k in ("id", "split", "number", "title", "body")} for r in packet.records]}  # fmt: skip
    text = template.replace("__CSP_SCRIPT__", csp_source(template, "script"))
    text = text.replace("__CSP_STYLE__", csp_source(template, "style"))
    return text.replace(DATA_MARK, script_json(data))


def write_page(packet_path: Path, output: Path) -> int:
    """Write the page (all at once); how many records it holds."""
    arguments.check({"PACKET": packet_path}, {"--output": output})
    packet = read_packet(packet_path)
    page = render(packet)
    outputs = Outputs([output])
    try:
        write_text(outputs.temp_for(output), page)
        outputs.commit()
    finally:
        outputs.discard()
    return len(packet.records)
