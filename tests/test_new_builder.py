"""What a new builder still trips over (issue 43), each shown by the real command: the
message says what happened and what to do, and a refused command leaves nothing behind."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conftest import issue, run_cli, write_json


def _freeze(tmp_path: Path, raw: Path, *extra: str, source: str = "github.com/huggingface/datasets/issues") -> Any:
    out = tmp_path / "out" / "corpus"
    return run_cli("freeze", raw, "--source", source, "--public", out / "p.json", "--answers", out / "a.json",
                   "--report", out / "r.json", *extra)  # fmt: skip


def _one_line(done: Any, command: str, *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"s8f-duck {command}: error: "), line
    for word in words:
        assert word in line, line
    return line


def test_another_repositorys_dump_is_told_which_redaction_map_scrubbed_it(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "raw.json", [issue(k, body="NVME SSD Samsung 960 EVO") for k in range(1, 4)])
    done = _freeze(tmp_path, raw, "--min-records", "1")
    assert done.returncode == 0, done.stderr
    assert "redaction map: S8f's own" in done.stdout and "give --redactions MAP" in done.stdout, done.stdout
    mine = write_json(tmp_path / "mine.json", [])
    (tmp_path / "b").mkdir()
    chosen = _freeze(tmp_path / "b", raw, "--min-records", "1", "--redactions", mine)
    assert chosen.returncode == 0 and "redaction map" not in chosen.stdout, chosen.stdout
    public = json.loads((tmp_path / "b" / "out" / "corpus" / "p.json").read_text(encoding="utf-8"))
    assert public["records"][0]["body"] == "NVME SSD Samsung 960 EVO"
    (tmp_path / "c").mkdir()
    s8f = _freeze(tmp_path / "c", raw, "--min-records", "1", source="github.com/anthony-chaudhary/fak/issues")
    assert s8f.returncode == 0 and "redaction map" not in s8f.stdout, s8f.stdout


def _pull_request(number: int) -> dict[str, Any]:
    url = f"https://github.com/x/y/pull/{number}"
    return {"number": number, "title": "t", "body": "", "state": "open", "labels": [],
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "closed_at": None,
            "html_url": url, "pull_request": {"html_url": url}}  # fmt: skip


def test_a_dump_of_pull_requests_only_says_how_many_were_dropped(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "prs.json", [_pull_request(k) for k in range(1, 8)])
    _one_line(_freeze(tmp_path, raw), "freeze", "no issue records to freeze", "7 pull requests dropped")
    assert not (tmp_path / "out").exists()  # no empty output directory left behind


def test_a_tiny_dump_is_told_about_min_records(tmp_path: Path) -> None:
    raw = write_json(tmp_path / "raw.json", [issue(1), issue(2)])
    _one_line(_freeze(tmp_path, raw), "freeze", "2 records, fewer than the minimum of 50", "--min-records")
    assert not (tmp_path / "out").exists()
    empty = write_json(tmp_path / "empty.json", [])
    line = _one_line(_freeze(tmp_path, empty, "--min-records", "0"), "freeze", "no issue records to freeze")
    assert "minimum of 1" not in line
    assert not (tmp_path / "out").exists()
    assert _freeze(tmp_path, raw, "--min-records", "0").returncode == 0
    assert (tmp_path / "out" / "corpus" / "p.json").is_file()


# --- a file in the wrong place: the message says what it is, or what goes there ---


def _frozen(tmp_path: Path, records: int = 3) -> dict[str, Path]:
    raw = write_json(tmp_path / "raw.json", [issue(k) for k in range(1, records + 1)])
    out = {name: tmp_path / f"{name}.json" for name in ("public", "answers", "report")}
    done = run_cli("freeze", raw, "--source", "x", "--min-records", "1", "--public", out["public"],
                   "--answers", out["answers"], "--report", out["report"], "-q")  # fmt: skip
    assert done.returncode == 0, done.stderr
    bundle = json.loads(out["answers"].read_text(encoding="utf-8"))
    out["submission"] = write_json(tmp_path / "submission.json", {**bundle, "schema": "fak-microcontext-submission/1"})
    return out


def test_swapped_files_are_named_for_what_they_are(tmp_path: Path) -> None:
    f = _frozen(tmp_path)
    _one_line(run_cli("grade", "--answers", f["submission"], "--submission", f["answers"]), "grade",
              "this is a submission, not an answer bundle (did you swap the files?)")  # fmt: skip
    _one_line(run_cli("grade", "--answers", f["public"], f["submission"]), "grade",
              "this is a public corpus, not an answer bundle (did you swap the files?)")  # fmt: skip
    _one_line(run_cli("baseline", "--public", f["answers"], "--output", tmp_path / "b.json"), "baseline",
              "this is an answer bundle, not a public corpus (did you swap the files?)")  # fmt: skip
    _one_line(run_cli("verify", "--public", f["answers"], "--answers", f["public"], "--report", f["report"]), "verify",
              "this is an answer bundle, not a public corpus (did you swap the files?)")  # fmt: skip
    _one_line(run_cli("verify", "--public", f["public"], "--answers", f["report"], "--report", f["answers"]), "verify",
              "not a report", "this is an answer bundle, not a report (did you swap the files?)")  # fmt: skip


def test_sql_with_the_corpus_as_an_argument_says_where_it_goes(tmp_path: Path) -> None:
    f = _frozen(tmp_path)
    _one_line(run_cli("sql", f["public"], "SELECT 1"), "sql", "unexpected extra argument",
              "the corpus goes with --public FILE (or a database with --db FILE)")  # fmt: skip
    done = run_cli("sql", "--public", f["public"], "SELECT 1 AS one", "--format", "csv")
    assert done.returncode == 0 and done.stdout.splitlines() == ["one", "1"], (done.stdout, done.stderr)


BASE = Path(sys.base_prefix)
PYTHON = str(BASE / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}")
PYTHON_MOUNT = [] if BASE.is_relative_to("/usr") else ["--ro", str(BASE)]


def test_a_host_path_given_to_the_sandbox_gets_a_hint(tmp_path: Path) -> None:
    f = _frozen(tmp_path)
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    (candidate / "main.py").write_text("print('hello')\n")
    common = ["run", "--public", f["public"], "--answers", f["answers"], "--runs", tmp_path / "runs.duckdb",
              "--name", "c", *PYTHON_MOUNT]  # fmt: skip
    done = run_cli(*common, "--", PYTHON, candidate / "main.py")
    assert done.returncode == 1, done.stderr
    assert f"{candidate / 'main.py'} is a path on this machine, which the sandbox does not see" in done.stdout
    assert "--candidate-dir DIR, seen at /candidate, or mount a path with --ro PATH" in done.stdout
    venv_python = run_cli(*common, "--", sys.executable, "-c", "pass")  # the project's own .venv
    assert venv_python.returncode == 1 and "is a path on this machine" in venv_python.stdout, venv_python.stdout
    mounted = run_cli(*common, "--candidate-dir", candidate, "--", PYTHON, "main.py")  # the way the hint says
    assert "is a path on this machine" not in mounted.stdout, mounted.stdout


# --- adjudication: the resolver's packet, and which labels a semantic bundle misses ---


def _gold(packet: Path, labels: list[Path], folder: Path, *extra: str | Path) -> Any:
    from conftest import S8F_ANSWERS, S8F_PUBLIC

    return run_cli("adjudicate", "gold", packet, *labels, "--policy", "unanimous", "--public", S8F_PUBLIC,
                   "--answers", S8F_ANSWERS, "--output", folder / "semantic.json",
                   "--report", folder / "semantic-report.json", "--resamples", "5", "--allow-weak",
                   *extra)  # fmt: skip  (constructed labels: a weak gold, written with its weakness)


def test_a_resolver_without_its_packet_is_told_to_give_it(packet: Path, tmp_path: Path) -> None:
    from adjudicated import labelled, labels_file, three

    labels = three(packet, tmp_path)
    further = tmp_path / "further.json"
    agreed = run_cli("adjudicate", "agree", packet, *labels, "--resamples", "5", "--disagreements", further)
    assert agreed.returncode == 0, agreed.stderr
    resolver = labels_file(tmp_path / "judge.json", further, "judge", labelled(further, lambda k, f: f["values"][-1]),
                           kind="person")  # fmt: skip
    _one_line(_gold(packet, labels, tmp_path, "--resolver", resolver), "adjudicate gold",
              "these labels are for another packet", "give that packet as --resolver-packet")  # fmt: skip
    assert _gold(packet, labels, tmp_path, "--resolver", resolver, "--resolver-packet", further).returncode == 0


def test_verify_semantic_names_the_labels_file_left_out(packet: Path, tmp_path: Path) -> None:
    from adjudicated import three
    from conftest import S8F_ANSWERS, S8F_PUBLIC, S8F_REPORT

    labels = three(packet, tmp_path)
    assert _gold(packet, labels, tmp_path).returncode == 0
    verify = ["verify", "--public", S8F_PUBLIC, "--answers", S8F_ANSWERS, "--report", S8F_REPORT,
              "--semantic", tmp_path / "semantic.json", "--semantic-report", tmp_path / "semantic-report.json",
              "--packet", packet]  # fmt: skip
    done = run_cli(*verify, *[x for p in labels[:2] for x in ("--labels", p)])
    assert done.returncode == 1, done.stderr
    assert "does not re-derive" in done.stderr and "the report names labels not given: 'c'" in done.stderr, done.stderr


# --- grade --semantic: a field without test gold, and many submissions in a table ---


def test_semantic_figures_without_gold_and_for_many_submissions(packet: Path, tmp_path: Path) -> None:
    from adjudicated import made_gold
    from conftest import S8F_ANSWERS, S8F_PUBLIC_SHA256

    semantic = made_gold(packet, tmp_path)
    bundle = json.loads(semantic.read_text(encoding="utf-8"))
    field = bundle["rubric"][0]["name"]
    bundle["gold"] = [g for g in bundle["gold"] if not (g["field"] == field and g["split"] == "test")]
    no_test_gold = write_json(tmp_path / "no-test-gold.json", bundle)
    copied = [{"id": g["id"], "field": g["field"], "values": g["values"]} for g in bundle["gold"]]
    submissions = [write_json(tmp_path / f"s{k}.json", {"schema": "fak-microcontext-submission/1",
                                                         "corpus_sha256": S8F_PUBLIC_SHA256, "answers": [],
                                                         "semantic": copied[: k * len(copied) // 2]})
                   for k in (1, 2)]  # fmt: skip
    one = run_cli("grade", "--answers", S8F_ANSWERS, "--submission", submissions[1], "--semantic", no_test_gold)
    assert one.returncode == 1, one.stderr
    assert f"semantic {field}: not graded (no test record has adjudicated gold)" in one.stdout, one.stdout
    assert "None" not in one.stdout
    many = run_cli("grade", "--answers", S8F_ANSWERS, *submissions, "--semantic", semantic, "--format", "table")
    assert many.returncode == 1, many.stderr
    head, *rows = many.stdout.splitlines()
    assert head.split()[-1] == "semantic", head
    figures = [float(row.split()[-1]) for row in rows[:2]]
    assert 0 <= figures[0] < figures[1] <= 1, rows  # half the gold answered, then all of it
    assert "the share of the adjudicated fields answered right" in many.stdout


def test_agree_table_names_its_columns_and_q_prints_nothing(packet: Path, tmp_path: Path) -> None:
    from adjudicated import three

    labels = three(packet, tmp_path)
    done = run_cli("adjudicate", "agree", packet, *labels, "--resamples", "5")
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0].split()
    assert header[:4] == ["adjudicator", "person", "or", "model"] and "kind labelled" in done.stdout, header
    assert header.count("kind") == 1  # the rubric's field `kind`, once, as "kind labelled"
    assert "resamples: of the --resamples draws of the records, those where the statistic is defined" in done.stdout
    assert "records they disagree on: " in done.stdout and "--disagreements FILE writes them" in done.stdout
    further = tmp_path / "further.json"
    quiet = run_cli("adjudicate", "agree", packet, *labels, "--resamples", "5", "-q", "--disagreements", further)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "") and further.is_file()


def test_team_output_writes_the_token_for_its_owner_only(tmp_path: Path) -> None:
    import stat

    teams, token = tmp_path / "teams.json", tmp_path / "keys" / "alpha.token"
    done = run_cli("team", "--teams", teams, "alpha", "--output", token)
    assert done.returncode == 0 and done.stdout == "", (done.stdout, done.stderr)
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    secret = token.read_text(encoding="utf-8").strip()
    import hashlib

    stored = json.loads(teams.read_text(encoding="utf-8"))
    assert [t["token_sha256"] for t in stored] == [hashlib.sha256(secret.encode()).hexdigest()]
    again = run_cli("team", "--teams", teams, "alpha", "--output", tmp_path / "again.token")
    _one_line(again, "team", "already exists")
    assert not (tmp_path / "again.token").exists()


def test_leaderboard_names_stay_distinct_and_one_run_is_one_run(tmp_path: Path) -> None:
    f = _frozen(tmp_path, 60)
    candidate = tmp_path / "candidate"
    candidate.mkdir()
    (candidate / "sub.json").write_bytes(f["submission"].read_bytes())
    copy = ["--candidate-dir", candidate, "--", "/bin/cp", "/candidate/sub.json", "/out/submission.json"]
    names = [f"model-student-distilled-{k}" for k in ("alpha", "beta")]
    for runs, name in ((tmp_path / "one.duckdb", names[0]), (tmp_path / "two.duckdb", names[0]),
                       (tmp_path / "two.duckdb", names[1])):  # fmt: skip
        done = run_cli("run", "--public", f["public"], "--answers", f["answers"], "--runs", runs, "--name", name,
                       "-q", *copy)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    one = run_cli("leaderboard", "--runs", tmp_path / "one.duckdb", "--format", "table")
    assert one.returncode == 0, one.stderr
    assert "Leaderboard of 1 run in" in one.stdout and "(1 run," in one.stdout and "1 runs" not in one.stdout
    two = run_cli("leaderboard", "--runs", tmp_path / "two.duckdb", "--format", "table")
    assert two.returncode == 0, two.stderr
    lines = two.stdout.splitlines()
    rule = next(k for k, line in enumerate(lines) if line.startswith("----  "))
    shown = [line.split()[1] for line in lines[rule + 1 : rule + 3]]
    assert len(set(shown)) == 2, shown  # (cut, both would read model-student-distil…)
    assert all(name.startswith(s.rstrip("…")) for s, name in zip(shown, names)), shown


# --- adjudicate model stopped by Ctrl-C: what is kept, and that the same command goes on ---


def _stopped_model_run(packet: Path, tmp_path: Path, hang_after: int, lines: int) -> tuple[Any, Path]:
    import os
    import signal
    import subprocess
    import time

    from conftest import CLI
    from openai_server import openai_server

    output = tmp_path / f"labels-{hang_after}.json"
    journal = Path(f"{output}.journal")
    with openai_server("keyword", hang_after=hang_after) as server:
        process = subprocess.Popen([str(CLI), "adjudicate", "model", str(packet), "--endpoint", server.url,
                                    "--model", "m", "--output", str(output), "--concurrency", "2"],
                                   env={**os.environ, "NO_PROXY": "127.0.0.1"}, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)  # fmt: skip
        deadline = time.monotonic() + 120
        # the journal holds its header and `lines - 1` records, and a request is held
        while not (journal.exists() and journal.read_bytes().count(b"\n") == lines
                   and any(r.get("hung") for r in server.requests)):  # fmt: skip
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()  # type: ignore[union-attr]
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    return stderr, journal


def test_ctrl_c_removes_a_journal_of_no_record(packet: Path, tmp_path: Path) -> None:
    stderr, journal = _stopped_model_run(packet, tmp_path, 0, 1)
    assert "stopped by SIGINT" in stderr and "no record was done" in stderr, stderr
    assert not journal.exists()  # as docs/adjudication.md says: a journal of no record is not kept


def test_ctrl_c_keeps_the_records_done_and_says_the_same_command_goes_on(packet: Path, tmp_path: Path) -> None:
    stderr, journal = _stopped_model_run(packet, tmp_path, 3, 4)
    assert f"the 3 records done are kept in {journal}: the same command again asks only for the rest" in stderr
    assert journal.read_bytes().count(b"\n") == 4
