"""Tests for experiments/scale_up.py on a small hand-written raw corpus."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "experiments" / "scale_up.py"


def _load_module() -> Any:
    """Import experiments/scale_up.py as a module (experiments/ is no package)."""
    spec = importlib.util.spec_from_file_location("scale_up", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["scale_up"] = mod
    spec.loader.exec_module(mod)
    return mod


su = _load_module()

URL = "https://github.com/o/r/issues/"

RAW: list[dict[str, Any]] = [
    {
        "number": 105,
        "title": "Parent #106 and #999",
        "body": "Dup of #108, see #110; outside #4242.",
        "state": "OPEN",
        "labels": [{"name": "bug"}],
        "createdAt": "2026-07-16T17:48:57Z",
        "updatedAt": "2026-07-16T18:00:00.5+02:00",
        "closedAt": None,
        "url": URL + "105",
        "extra": {"kept": True},
    },
    {
        "number": 106,
        "title": "#105 first",
        # the docs/format.md §3 reference examples, one per line
        "body": "é#105\nx#106\n#108é\n#109_\n#12345678\n#00110\n##111\n#112#113",
        "state": "CLOSED",
        "labels": [],
        "createdAt": "2026-07-16T17:48:57.999999Z",
        "updatedAt": "2026-07-16T17:48:57.123456789-05:30",
        "closedAt": "2026-12-31T23:59:59.9999995Z",
        "url": URL + "106",
    },
    {"number": 108, "title": "t108", "body": "", "state": "OPEN", "labels": [],
     "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00.000Z",
     "url": URL + "108"},
    {"number": 109, "title": "ünï #110", "body": "#109", "state": "OPEN", "labels": [],
     "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
     "closedAt": None, "url": URL + "109"},
    {"number": 110, "title": "t110", "body": "#111 #112 #113 (none in corpus)", "state": "OPEN",
     "labels": [], "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
     "closedAt": None, "url": URL + "110"},
]


def _run(tmp_path: Path, raw: list[dict[str, Any]], n: int) -> tuple[str, list[dict[str, Any]]]:
    """Run the CLI on ``raw`` with ``n`` copies; return (output text, records)."""
    src = tmp_path / "raw.json"
    src.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), str(src), str(n), str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "out.json.tmp").exists()
    text = out.read_text(encoding="utf-8")
    return text, json.loads(text)


def test_reference_examples() -> None:
    """The docs/format.md §3 examples give exactly the listed references."""
    cases = {"é#105": [105], "x#106": [], "#108é": [108], "#109_": [], "#12345678": [],
             "#00110": [110], "##111": [111], "#112#113": [112], "a\n#7": [7], "#7\n": [7]}
    for text, want in cases.items():
        assert su.find_references(text) == want, text


def test_n1_reproduces_records(tmp_path: Path) -> None:
    """N=1 writes the input records unchanged, in the streaming layout."""
    text, recs = _run(tmp_path, RAW, 1)
    assert recs == RAW
    assert text.startswith("[\n") and text.endswith("\n]\n")
    assert text == "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in RAW) + "\n]\n"


def test_copies(tmp_path: Path) -> None:
    """Numbers, urls, references, markers and timestamps of copies 0..2."""
    _, recs = _run(tmp_path, RAW, 3)
    assert len(recs) == 3 * len(RAW)
    assert recs[: len(RAW)] == RAW
    assert [r["number"] for r in recs] == [r["number"] + 10000 * c for c in range(3) for r in RAW]
    assert all(r["url"] == URL + str(r["number"]) for r in recs)
    assert len({r["number"] for r in recs}) == len(recs)

    r0, r1, r2 = recs[5], recs[6], recs[10]  # copy 1 of #105/#106, copy 2 of #105
    assert list(r0) == list(RAW[0])  # key order kept
    assert r0["extra"] == {"kept": True} and r0["labels"] == [{"name": "bug"}]
    assert r0["state"] == "OPEN" and r0["closedAt"] is None
    # in-corpus refs rewritten, out-of-corpus (#999, #4242) kept; marker appended
    assert r0["title"] == "Parent #10106 and #999 [copy 1]"
    assert r0["body"] == "Dup of #10108, see #10110; outside #4242.\n\n[copy 1]"
    assert r2["title"] == "Parent #20106 and #999 [copy 2]"
    assert r2["body"] == "Dup of #20108, see #20110; outside #4242.\n\n[copy 2]"
    # reference examples: é#105→105, #108é→108, #00110→110 are in corpus; ##111,
    # #112 are references but out of corpus; x#106, #109_, #12345678, #113 are none
    assert r1["title"] == "#10105 first [copy 1]"
    assert r1["body"] == ("é#10105\nx#106\n#10108é\n#109_\n#12345678\n#10110\n##111\n#112#113"
                          "\n\n[copy 1]")
    assert recs[8]["title"] == "ünï #10110 [copy 1]" and recs[8]["body"] == "#10109\n\n[copy 1]"
    assert recs[9]["body"] == "#111 #112 #113 (none in corpus)\n\n[copy 1]"
    assert recs[7]["body"] == "\n\n[copy 1]"  # empty body gets the marker too
    assert "closedAt" not in recs[7]  # absent stays absent

    # timestamps: +c µs, own offset kept, fraction trimmed
    assert r0["createdAt"] == "2026-07-16T17:48:57.000001Z"
    assert r2["createdAt"] == "2026-07-16T17:48:57.000002Z"
    assert r0["updatedAt"] == "2026-07-16T18:00:00.500001+02:00"
    assert r1["createdAt"] == "2026-07-16T17:48:58Z"  # .999999 + 1 µs carries
    assert r1["updatedAt"] == "2026-07-16T17:48:57.123457789-05:30"  # nanoseconds kept
    assert r1["closedAt"] == "2027-01-01T00:00:00.0000005Z"  # carries over the year
    assert recs[7]["updatedAt"] == "2026-01-01T00:00:00.000001Z"
    assert recs[11]["createdAt"] == "2026-07-16T17:48:58.000001Z"  # copy 2 of #106


def test_timestamp_shift() -> None:
    """Shifting by 0 is the identity on Go-normalised strings; 3 µs matches the brief."""
    assert su.Timestamp("2026-07-16T17:48:57Z").shifted(3) == "2026-07-16T17:48:57.000003Z"
    assert su.Timestamp("2026-07-16T17:48:57Z").shifted(0) == "2026-07-16T17:48:57Z"
    assert su.Timestamp("2026-07-16T17:48:57.5+02:00").shifted(0) == "2026-07-16T17:48:57.5+02:00"
    with pytest.raises(ValueError):
        su.Timestamp("2026-07-16 17:48:57Z")
    with pytest.raises(ValueError):
        su.Timestamp("2026-07-16T17:48:57Z\n")


def test_errors_leave_no_output(tmp_path: Path) -> None:
    """Bad input or N fails with exit 1 and writes nothing."""
    src = tmp_path / "raw.json"
    out = tmp_path / "out.json"
    bad = [dict(RAW[0], createdAt="yesterday")]
    for raw, n in ((bad, 2), (RAW, 0), (RAW + [dict(RAW[0])], 2), ([dict(RAW[0], number=10000)], 2)):
        src.write_text(json.dumps(raw), encoding="utf-8")
        proc = subprocess.run([sys.executable, str(SCRIPT), str(src), str(n), str(out)],
                              capture_output=True, text=True)
        assert proc.returncode == 1 and "error" in proc.stderr
        assert not out.exists() and not (tmp_path / "out.json.tmp").exists()


def test_lone_surrogate_and_invalid_utf8(tmp_path: Path) -> None:
    """Lone surrogate escapes and invalid UTF-8 bytes come out as valid-UTF-8 \\u escapes."""
    src = tmp_path / "raw.json"
    body = json.dumps(RAW[:1], ensure_ascii=False).encode()
    body = body.replace(b"Dup of", b"\\ud800 \xff of")
    src.write_bytes(body)
    out = tmp_path / "out.json"
    assert su.scale_up(str(src), 2, str(out), progress=False) == 2
    data = out.read_bytes()
    data.decode("utf-8")  # strict: valid UTF-8
    recs = json.loads(data)
    assert recs[1]["body"].startswith("\ud800 \udcff of #108")  # #108 not in this corpus
    assert b"\\ud800 \\udcff" in data
