"""The dump forms freeze reads, told from the content: the `gh issue list --json` array,
GitHub's REST issue objects (an array, pages, JSON Lines), any of them gzip-compressed.
A REST dump freezes to the bytes of the same issues in gh form; a file that is none of
them is exit 2 with a message."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    REPO,
    S8F_ANSWERS_SHA256,
    S8F_PUBLIC_SHA256,
    S8F_RAW,
    S8F_SOURCE,
    issue,
    needs_s8f,
    record,
    run_cli,
)  # fmt: skip

from s8f_duck.pipeline import steps
from s8f_duck.reading import input_forms, load, rest_batches, rest_dumps, split
from s8f_duck.safety.errors import UnusableInput


def _rest_dump_module() -> Any:
    """experiments/rest_dump.py, which rewrites a gh dump in REST form (experiments/ is no package)."""
    spec = importlib.util.spec_from_file_location("rest_dump", REPO / "experiments" / "rest_dump.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rest_dump"] = module
    spec.loader.exec_module(module)
    return module


rest_dump = _rest_dump_module()


def rest_text(issues: list[dict[str, Any]], form: str, *, compact: bool = False, per_page: int = 100) -> str:
    """The issues in REST form, each followed by a pull request (rest_dump.rest_objects)."""
    out = io.StringIO()
    rest_dump.write(rest_dump.rest_objects(issues), out, form, per_page, compact)
    return out.getvalue()


def rest_objects(issues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list(rest_dump.rest_objects(issues))


def pages_text(objects: list[Any], per_page: int, compact: bool = True) -> str:
    pages = [objects[i : i + per_page] for i in range(0, len(objects), per_page)]
    return "".join(json.dumps(page, indent=None if compact else 2) for page in pages)


def lines_text(objects: list[Any]) -> str:
    return "".join(json.dumps(obj) + "\n" for obj in objects)


def freeze_cli(tmp_path: Path, raw: Path, *extra: str, source: str = "test") -> Any:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return run_cli(
        "freeze", raw, "--source", source, "--public", out / "public.json", "--answers", out / "answers.json",
        "--report", out / "report.json", *extra,
    )  # fmt: skip


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def s8f_gh_report(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("gh")
    result = run_cli("freeze", S8F_RAW, "--source", S8F_SOURCE, "--public", out / "p.json", "--answers", out / "a.json",
                     "--report", out / "r.json", "--quiet")  # fmt: skip
    assert result.returncode == 0, result.stderr
    return (out / "r.json").read_bytes()


REST_LAYOUTS = {
    "array": ("array", False),
    "compact array": ("array", True),
    "pages": ("pages", False),
    "compact pages": ("pages", True),
    "lines": ("lines", True),
}


@needs_s8f
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("layout", list(REST_LAYOUTS))
def test_s8f_in_rest_form_freezes_to_the_s8f_digests(
    tmp_path: Path, s8f_gh_report: bytes, layout: str, compressed: bool
) -> None:
    # 1,000 issues, each followed by a pull request; one issue in five with the early API's
    # "pull_request": {"html_url": null}, the empty body as null, lower-case states.
    form, compact = REST_LAYOUTS[layout]
    text = rest_text(json.loads(S8F_RAW.read_bytes()), form, compact=compact)
    raw = tmp_path / ("issues.json.gz" if compressed else "issues.json")
    raw.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    result = freeze_cli(tmp_path, raw, source=S8F_SOURCE)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    assert sha256(out / "public.json") == S8F_PUBLIC_SHA256
    assert sha256(out / "answers.json") == S8F_ANSWERS_SHA256
    assert (out / "report.json").read_bytes() == s8f_gh_report
    assert f"input: GitHub REST issue objects ({form}); pull requests dropped 1000" in result.stdout


@needs_s8f
def test_gzip_compressed_gh_dump_freezes_to_the_s8f_digests(tmp_path: Path) -> None:
    raw = tmp_path / "gh-issues.json.gz"
    raw.write_bytes(gzip.compress(S8F_RAW.read_bytes()))
    result = freeze_cli(tmp_path, raw, source=S8F_SOURCE)
    assert result.returncode == 0, result.stderr
    assert sha256(tmp_path / "out" / "public.json") == S8F_PUBLIC_SHA256
    assert sha256(tmp_path / "out" / "answers.json") == S8F_ANSWERS_SHA256
    assert "pull requests" not in result.stdout


@needs_s8f
def test_verify_raw_reads_a_rest_dump(tmp_path: Path) -> None:
    raw = tmp_path / "issues.jsonl"
    raw.write_text(rest_text(json.loads(S8F_RAW.read_bytes()), "lines"))
    out = tmp_path / "out"
    assert freeze_cli(tmp_path, S8F_RAW, source=S8F_SOURCE).returncode == 0
    result = run_cli("verify", "--public", out / "public.json", "--answers", out / "answers.json",
                     "--report", out / "report.json", "--raw", raw)  # fmt: skip
    assert result.returncode == 0, result.stderr
    changed = re.sub(r'"title": ?"', '"title": "changed ', raw.read_text(), count=1)
    assert changed != raw.read_text()
    raw.write_text(changed)
    result = run_cli("verify", "--public", out / "public.json", "--answers", out / "answers.json",
                     "--report", out / "report.json", "--raw", raw)  # fmt: skip
    assert result.returncode == 1 and "fresh freeze of" in result.stderr


def tricky_issues(n: int = 60) -> list[dict[str, Any]]:
    """Issues whose texts hold what a cut between records or pages looks for."""
    texts = ['a "},{" b', "x }][{ y", "code a[0][1]", "list [1]\n[2]", '"}\\n]\\n[\\n{"', "plain"]
    return [
        issue(k, title=f"Issue {k} {texts[k % len(texts)]}", body=f"see #{k + 1} {texts[(k + 3) % len(texts)]}",
              state="CLOSED" if k % 3 else "OPEN", labels=["b", "a"] if k % 2 else [],
              closed="2026-01-03T00:00:00Z" if k % 3 else None)
        for k in range(1, n + 1)
    ]  # fmt: skip


def raw_issues_of(path: Path, input_format: str = "auto") -> tuple[list[tuple], int]:
    with input_forms.opened(path, input_format) as dump, steps.connect() as con:
        dropped = input_forms.load(con, dump, 1)
        return con.execute("SELECT * FROM raw_issues ORDER BY number").fetchall(), dropped


LAYOUTS = {
    "array": lambda issues: rest_text(issues, "array"),
    "compact array": lambda issues: rest_text(issues, "array", compact=True),
    "pages": lambda issues: rest_text(issues, "pages", per_page=7),
    "compact pages": lambda issues: rest_text(issues, "pages", compact=True, per_page=7),
    "lines": lambda issues: rest_text(issues, "lines"),
    "objects over several lines": lambda issues: "\n".join(json.dumps(o, indent=2) for o in rest_objects(issues)),
}


@pytest.mark.parametrize("in_parts", [False, True], ids=["whole", "parts"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_rest_forms_load_the_raw_issues_of_the_gh_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, in_parts: bool
) -> None:
    issues = tricky_issues()
    gh = tmp_path / "gh.json"
    gh.write_text(json.dumps(issues, indent=2))
    expected, _ = raw_issues_of(gh)
    if in_parts:  # every dump counts as large: cut between records or pages, a block or part each
        monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
        monkeypatch.setattr(rest_batches, "BLOCK_BYTES", 1)
        monkeypatch.setattr(rest_batches, "CUT_WINDOW", 256)
    rest = tmp_path / "rest.json"
    rest.write_text(LAYOUTS[layout](issues))
    assert raw_issues_of(rest) == (expected, len(issues))

    def refuse(*args: Any) -> Any:
        raise rest_batches.NotHere("refused")

    monkeypatch.setattr(rest_batches, "batches", refuse)  # the other readings give the same
    assert raw_issues_of(rest) == (expected, len(issues))


def test_pull_requests_are_those_with_a_pull_request_html_url(tmp_path: Path) -> None:
    objects = rest_objects([issue(n) for n in range(1, 7)])[::2]  # the issues alone
    objects[0]["pull_request"] = None
    objects[1]["pull_request"] = {"html_url": None, "diff_url": None}
    objects[2]["pull_request"] = {"url": "https://api.github.com/repos/demo/x/pulls/3"}
    objects[3]["pull_request"] = "not an object"
    objects[4]["pull_request"] = {"html_url": "https://github.com/demo/x/pull/5"}
    raw = tmp_path / "rest.jsonl"
    raw.write_text(lines_text(objects))
    result = freeze_cli(tmp_path, raw, "--min-records", "1")
    assert result.returncode == 0, result.stderr
    public = json.loads((tmp_path / "out" / "public.json").read_bytes())
    assert [r["number"] for r in public["records"]] == [1, 2, 3, 4, 6]
    assert {r["state"] for r in public["records"]} == {"OPEN"}
    assert "pull requests dropped 1" in result.stdout


def test_go_decoding_of_a_rest_dump_that_duckdb_refuses(tmp_path: Path) -> None:
    # A repeated key (Go keeps the last value) and invalid UTF-8 (U+FFFD per byte).
    data = rest_text([issue(1, "FIRST", "BODY1"), issue(2)], "pages", per_page=3).encode()
    data = data.replace(b'"title": "FIRST"', b'"title": "first", "title": "last"').replace(b"BODY1", b"x\xffy")
    raw = tmp_path / "rest.json"
    raw.write_bytes(data)
    result = freeze_cli(tmp_path, raw, "--min-records", "1")
    assert result.returncode == 0, result.stderr
    public = json.loads((tmp_path / "out" / "public.json").read_bytes())
    assert (record({"public": public}, 1)["title"], record({"public": public}, 1)["body"]) == ("last", "x\ufffdy")
    assert "pull requests dropped 2" in result.stdout


def bad_rest(field: str, value: Any, at: int = 3) -> list[dict[str, Any]]:
    """60 issues in REST form with their pull requests; issue `at` (record 2 * at) changed."""
    objects = rest_objects([issue(n) for n in range(1, 61)])
    objects[2 * at][field] = value
    return objects


REST_BAD = {
    "created_at unparseable": (bad_rest("created_at", "yesterday"), "record 6 (number 4): field 'created_at'"),
    "closed_at a number": (bad_rest("closed_at", 5), "record 6 (number 4): field 'closed_at' must be a string, got number"),
    "html_url missing": (bad_rest("html_url", None), "record 6 (number 4): field 'html_url' must be a string, got null"),
    "title a number": (bad_rest("title", 12), "record 6 (number 4): field 'title' must be a string, got number"),
    "state missing": (bad_rest("state", None), "record 6 (number 4): field 'state' must be a string, got null"),
    "repeated number": (bad_rest("number", 1), "record 6 (number 1): number 1 repeats record 0"),
    "label name a number": (bad_rest("labels", [{"name": 7}]), "record 6 (number 4): labels[0]: field 'name' must be a string"),
    "not an object": (bad_rest("number", 4)[:6] + [7] + bad_rest("number", 4)[7:], "record 6: expected an object, got number"),
    "null": (bad_rest("number", 4)[:6] + [None] + bad_rest("number", 4)[7:], "record 6: expected an object, got null"),
    "too few issues": (rest_objects([issue(n) for n in range(1, 50)]), "49 records, fewer than the minimum of 50"),
}  # fmt: skip


BAD_LAYOUTS = [("pages", case) for case in REST_BAD] + [
    (layout, case) for layout in ("array", "lines") for case in ("created_at unparseable", "title a number", "not an object")
]


@pytest.mark.parametrize(("layout", "case"), BAD_LAYOUTS, ids=[f"{layout}: {case}" for layout, case in BAD_LAYOUTS])
def test_bad_rest_dump_exits_2_names_the_record_and_writes_nothing(tmp_path: Path, case: str, layout: str) -> None:
    objects, message = REST_BAD[case]
    text = {"array": json.dumps(objects, indent=2), "pages": pages_text(objects, 5), "lines": lines_text(objects)}[layout]
    raw = tmp_path / "rest.json"
    raw.write_text(text)
    result = freeze_cli(tmp_path, raw)
    assert result.returncode == 2, result.stderr
    assert f"{raw}: {message}" in result.stderr
    assert list((tmp_path / "out").iterdir()) == []


def test_a_bad_record_in_a_later_part_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(split, "PART_MIN_BYTES", 0)
    raw = tmp_path / "rest.json"
    raw.write_text(pages_text(bad_rest("updated_at", "2026-02-30T00:00:00Z", at=55), 4, compact=False))
    with pytest.raises(UnusableInput, match=re.escape("record 110 (number 56): field 'updated_at'")):
        raw_issues_of(raw)


def gh_and_rest(tmp_path: Path) -> bytes:
    """A gh record followed by a REST object."""
    return json.dumps([issue(1), rest_objects([issue(2)])[0]]).encode()


NOT_A_DUMP: dict[str, tuple[bytes, str]] = {
    "a JSON object": (b'{"message": "Not Found", "documentation_url": "https://docs.github.com"}',
                      "expected a JSON array of `gh issue list --json` records, or GitHub REST issue objects"),
    "an array of non-issues": (json.dumps([{"id": n, "name": "x"} for n in range(60)]).encode(),
                               "record 0 is an object with neither form's keys"),
    "a mix of forms in an array": (json.dumps([issue(1), rest_objects([issue(2)])[0]]).encode(),
                                   "record 1 is a GitHub REST issue object but record 0 is a `gh issue list --json` record"),
    "a mix of forms in lines": (lines_text([rest_objects([issue(1)])[0], issue(2)]).encode(),
                                "record 1 is a `gh issue list --json` record but record 0 is a GitHub REST issue object"),
    "pages, then an object": ((pages_text(rest_objects([issue(n) for n in range(1, 40)]), 10)
                               + json.dumps(rest_objects([issue(99)])[0])).encode(),
                              "value 8 is object where value 0 is array"),
    "gh records as JSON Lines": (lines_text([issue(n) for n in range(1, 60)]).encode(),
                                 "`gh issue list --json` records must be one JSON array, not JSON Lines"),
    "a corrupt gzip file": (gzip.compress(json.dumps([issue(n) for n in range(1, 60)]).encode())[:300],
                            "not a valid gzip file"),
    "gzip magic, then garbage": (b"\x1f\x8b" + b"garbage" * 10, "not a valid gzip file"),
    "not JSON at all": (b"number,title\n1,x\n", "not JSON"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(NOT_A_DUMP))
def test_a_file_in_no_expected_form_exits_2_and_says_what_was_expected(tmp_path: Path, case: str) -> None:
    content, message = NOT_A_DUMP[case]
    raw = tmp_path / "dump.json.gz"
    raw.write_bytes(content)
    result = freeze_cli(tmp_path, raw)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert str(raw) in result.stderr and "Traceback" not in result.stderr
    assert ("expected a JSON array" in result.stderr) or "gzip" in case
    assert list((tmp_path / "out").iterdir()) == []


def test_input_format_overrides_the_detection(tmp_path: Path) -> None:
    rest = tmp_path / "rest.json"
    rest.write_text(rest_text([issue(n) for n in range(1, 60)], "pages"))
    gh = tmp_path / "gh.json"
    gh.write_text(json.dumps([issue(n) for n in range(1, 60)]))
    result = freeze_cli(tmp_path, rest, "--input-format", "gh")
    assert result.returncode == 2 and "not JSON" in result.stderr
    result = freeze_cli(tmp_path, gh, "--input-format", "rest")
    assert result.returncode == 2
    assert "record 0 (number 1): field 'html_url' must be a string, got null" in result.stderr
    result = freeze_cli(tmp_path, rest, "--input-format", "rest")
    assert result.returncode == 0 and "pull requests dropped 59" in result.stdout
    result = freeze_cli(tmp_path, gh, "--input-format", "xml")
    assert result.returncode == 2 and "'--input-format': 'xml' is not one of 'auto', 'gh', 'rest'" in result.stderr


def test_gh_dump_with_a_record_that_is_no_object_first_is_read_as_gh(tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text(json.dumps([7, *[issue(n) for n in range(1, 60)]]))
    result = freeze_cli(tmp_path, raw)
    assert result.returncode == 2
    assert "record 0: expected an object, got number" in result.stderr


@pytest.mark.parametrize("compact", [False, True], ids=["indented", "compact"])
@pytest.mark.parametrize("longest", [1, 10], ids=["first record", "first page"])
def test_the_form_of_a_dump_with_a_first_record_or_page_longer_than_the_sample(
    tmp_path: Path, longest: int, compact: bool
) -> None:
    body = "x" * (input_forms.SAMPLE_BYTES // longest)
    issues = [issue(n, body=body) for n in range(1, 30)]
    for form in ("lines", "pages", "array"):
        raw = tmp_path / f"rest-{form}.json"
        raw.write_text(rest_text(issues, form, compact=compact, per_page=2 * longest))
        with input_forms.opened(raw) as dump:
            assert (dump.form, dump.container) == ("rest", form)
        assert raw_issues_of(raw)[1] == len(issues)


def test_load_raw_still_reads_gh_only(tmp_path: Path) -> None:
    raw = tmp_path / "rest.json"
    raw.write_text(rest_text([issue(1)], "array"))
    with steps.connect() as con, pytest.raises(UnusableInput, match="field 'createdAt' must be a string, got null"):
        load.load_raw(con, raw, 1)


@pytest.mark.parametrize("layout", ["array", "compact array", "pages", "compact pages", "lines"])
def test_rest_dumps_are_read_once_in_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    # The cuts fall between records or pages (not between labels or inside texts), so each
    # block decodes, and the dump is read by no other way.
    monkeypatch.setattr(rest_batches, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(rest_batches, "CUT_WINDOW", 4096)
    blocks: list[tuple[int, int, bool]] = []
    real = rest_batches._blocks

    def cut(*args: Any) -> Any:
        for block in real(*args):
            blocks.append(block)
            yield block

    monkeypatch.setattr(rest_batches, "_blocks", cut)
    monkeypatch.setattr(rest_dumps, "_read_otherwise", lambda *args: pytest.fail("read again"))
    body = "code a[0][1] {} }][{ },{"
    issues = [issue(n, body=f"see #{n + 1}, {body}", labels=["x", "y", "z"]) for n in range(1, 61)]
    raw = tmp_path / "rest.json"
    raw.write_text(LAYOUTS[layout](issues))
    assert raw_issues_of(raw)[1] == 60
    assert len(blocks) > 10 and blocks[-1][2] and blocks[-1][1] == raw.stat().st_size


NOT_GO_JSON = {  # in a member that no rule reads, of a record far past the head that tells the form
    "NaN": (b'"locked": NaN,', "not JSON: NaN and Infinity are not JSON"),
    "a trailing comma": (b'"assignees": [1, 2,],', "not JSON: a trailing comma before ']'"),
    "a vertical tab": (b'"locked":\x0bfalse,',
                       "not JSON: invalid character a vertical tab looking for beginning of value"),
}


@pytest.mark.parametrize("case", list(NOT_GO_JSON))
@pytest.mark.parametrize("layout", ["array", "compact array", "pages", "compact pages", "lines"])
def test_every_byte_of_a_rest_dump_is_json_as_go_reads_it(tmp_path: Path, layout: str, case: str) -> None:
    member, message = NOT_GO_JSON[case]
    text = LAYOUTS[layout]([issue(n, body="x" * 2000) for n in range(1, 121)]).encode()
    at = text.index(b'"locked"', text.index(b'"number": 110' if b'"number": 110' in text else b'"number":110'))
    end = text.index(b",", at) + 1
    raw = tmp_path / "rest.json"
    raw.write_bytes(text[:at] + member + text[end:])
    assert at > input_forms.SAMPLE_BYTES
    result = freeze_cli(tmp_path, raw)
    assert result.returncode == 2, result.stderr
    assert f"{raw}: " in result.stderr and message in result.stderr
    assert list((tmp_path / "out").iterdir()) == []


def test_a_gzip_dumps_decompressed_copy_is_removed_when_freeze_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from s8f_duck.corpus import freeze

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    raw = tmp_path / "issues.json.gz"
    raw.write_bytes(gzip.compress(rest_text([issue(n) for n in range(1, 60)], "lines").encode()))
    out = tmp_path / "out"
    out.mkdir()
    result = freeze.freeze(raw, out / "public.json", out / "answers.json", out / "report.json", "t")
    assert (result.rest_container, result.pull_requests_dropped) == ("lines", 59)
    assert {p.name[:15] for p in scratch.iterdir()} <= {"s8f-duck-spill-"}
