"""`grade --semantic`: a submission's answers to the rubric's fields (its `semantic`
member) against the semantic answer bundle's gold (docs/format.md §11): read here, compared
by the SQL of steps.SEMANTIC_GRADE_STEPS. Per field: coverage, accuracy and macro-F1 with
seeded bootstrap intervals, per-label precision, recall and F1, and the adjudicators' own
agreement beside them (the ceiling)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import duckdb
import msgspec

from s8f_duck.pipeline.steps import SEMANTIC_GRADE_STEPS, connect, create_table, rows, run_steps
from s8f_duck.reading.schemas import SEMANTIC_SCHEMA
from s8f_duck.reading.unique_keys import read_json_once
from s8f_duck.safety.errors import UnusableInput

DETAIL_RECORDS = 20  # the first results listed on tune and train (as the S8f grade's first inexact records)


class _Entry(msgspec.Struct):
    id: str
    field: str
    values: list[str]


class _Submission(msgspec.Struct):
    """What grade --semantic reads of a submission (other members are the S8f grade's)."""

    corpus_sha256: str = ""
    semantic: list[_Entry] = []


class _Field(msgspec.Struct):
    name: str
    values: list[str]
    multi: bool = False


class _Ceiling(msgspec.Struct):
    """A field's ceiling on one split (adjudicate gold: gold_ceilings.sql)."""

    field: str
    split: str | None = None
    alpha: float | None = None
    ceiling: float | None = None
    ceiling_low: float | None = None
    ceiling_high: float | None = None
    ceiling_basis: str | None = None
    coverage: float | None = None
    note: str | None = None


class _Weakness(msgspec.Struct):
    """What makes the gold weak (gold_gates.sql), written with --allow-weak."""

    field: str
    split: str | None
    figure: str
    value: float | None
    minimum: float


class _Gold(msgspec.Struct):
    id: str
    split: str
    field: str
    values: list[str]


class SemanticBundle(msgspec.Struct):
    """The parts of SEMANTIC.json the grade reads (adjudicate gold writes it)."""

    schema: str
    corpus_sha256: str
    answers_sha256: str
    rubric: list[_Field]
    ceilings: list[_Ceiling]
    gold: list[_Gold]
    policy: str = ""
    weaknesses: list[_Weakness] = []
    model_adjudicators: list[str] = []


def read_semantic(path: Path, answers_sha256: str | None = None) -> tuple[SemanticBundle, str]:
    """The semantic bundle and its SHA-256; UnusableInput names the file and what is wrong
    (another answer bundle's gold, when answers_sha256 is given)."""
    document = read_json_once(path)
    schema = document.get("schema") if isinstance(document, dict) else None
    if schema != SEMANTIC_SCHEMA:
        raise UnusableInput(f"{path}: field 'schema' is {schema!r}, expected {SEMANTIC_SCHEMA!r}")
    try:
        bundle = msgspec.convert(document, SemanticBundle)
    except msgspec.ValidationError as exc:
        raise UnusableInput(f"{path}: not a semantic answer bundle: {exc}") from None
    if answers_sha256 is not None and bundle.answers_sha256 != answers_sha256:
        raise UnusableInput(f"{path}: the semantic bundle goes with another answer bundle (answers_sha256 "
                            f"{bundle.answers_sha256}, --answers {answers_sha256})")  # fmt: skip
    with open(path, "rb") as f:
        return bundle, hashlib.file_digest(f, "sha256").hexdigest()


def read_submission(path: Path) -> _Submission:
    """The submission's digest binding and semantic member; UnusableInput names the entry."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=_Submission)
    except OSError as exc:
        raise UnusableInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    except msgspec.ValidationError as exc:  # "Expected `str`, got `int` - at `$.semantic[3].id`"
        raise UnusableInput(f"{path}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise UnusableInput(f"{path}: not JSON: {exc}") from None


def load(con: duckdb.DuckDBPyConnection, bundle: SemanticBundle, submission: _Submission) -> None:
    """The tables SEMANTIC_GRADE_STEPS read. A submission bound to another corpus answers
    nothing (as its S8f answers grade to nothing)."""
    labels = [(k, f.name, f.multi, n, label) for k, f in enumerate(bundle.rubric) for n, label in enumerate(f.values)]
    create_table(con, "semantic_rubric", {"field_index": "INTEGER", "field": "VARCHAR", "multi": "BOOLEAN",
                                          "label_index": "INTEGER", "label": "VARCHAR"}, labels)  # fmt: skip
    ceilings = [(c.field, c.split, c.alpha, c.ceiling, c.ceiling_low, c.ceiling_high, c.ceiling_basis, c.coverage,
                 c.note) for c in bundle.ceilings]  # fmt: skip
    create_table(con, "semantic_ceilings", {
        "field": "VARCHAR", "split": "VARCHAR", "alpha": "DOUBLE", "ceiling": "DOUBLE", "ceiling_low": "DOUBLE",
        "ceiling_high": "DOUBLE", "ceiling_basis": "VARCHAR", "coverage": "DOUBLE", "note": "VARCHAR",
    }, ceilings)  # fmt: skip
    weak = [(w.field, w.split, w.figure, w.value, w.minimum) for w in bundle.weaknesses]
    create_table(con, "semantic_weaknesses", {"field": "VARCHAR", "split": "VARCHAR", "figure": "VARCHAR",
                                              "value": "DOUBLE", "minimum": "DOUBLE"}, weak)  # fmt: skip
    import pyarrow as pa  # here: 0.14 s to import, and only a semantic grade needs it

    text, listed = pa.string(), pa.list_(pa.string())
    gold = pa.table({
        "position": pa.array(range(len(bundle.gold)), pa.int64()), "id": pa.array([g.id for g in bundle.gold], text),
        "split": pa.array([g.split for g in bundle.gold], text), "field": pa.array([g.field for g in bundle.gold], text),
        "gold": pa.array([g.values for g in bundle.gold], listed),
    })  # fmt: skip
    bound = submission.corpus_sha256 == bundle.corpus_sha256
    entries = submission.semantic if bound else []
    given = pa.table({
        "position": pa.array(range(len(entries)), pa.int64()), "id": pa.array([e.id for e in entries], text),
        "field": pa.array([e.field for e in entries], text), "labels": pa.array([e.values for e in entries], listed),
    })  # fmt: skip
    for name, table in (("semantic_gold", gold), ("semantic_entries", given)):
        con.register("_incoming", table)
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM _incoming")
        con.unregister("_incoming")


def semantic_grade(
    semantic_path: Path, submission_path: Path, split: str = "test", answers_sha256: str | None = None,
    resamples: int = 1000, seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """The semantic grade of a submission over a split: the figures per field, and on tune
    and train the first results per record too."""
    with connect() as con:
        return grade_into(con, semantic_path, submission_path, split, answers_sha256, resamples, seed)


def grade_into(
    con: duckdb.DuckDBPyConnection, semantic_path: Path, submission_path: Path, split: str = "test",
    answers_sha256: str | None = None, resamples: int = 1000, seed: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """semantic_grade in the given database, whose tables (semantic_grade, semantic_results,
    semantic_meta...) stay there for a run's record."""
    bundle, semantic_sha256 = read_semantic(semantic_path, answers_sha256)
    submission = read_submission(submission_path)
    load(con, bundle, submission)
    create_table(con, "semantic_meta", {"semantic_sha256": "VARCHAR", "policy": "VARCHAR",
                                        "model_adjudicators": "VARCHAR[]"},
                 [(semantic_sha256, bundle.policy, bundle.model_adjudicators)])  # fmt: skip
    for name, value in (("s8f_graded_split", split), ("agreement_resamples", resamples), ("agreement_seed", seed)):
        con.execute(f"SET VARIABLE {name} = ?", [value])
    run_steps(con, SEMANTIC_GRADE_STEPS)
    report: dict[str, Any] = {
        "semantic_sha256": semantic_sha256,
        "policy": bundle.policy,
        "model_adjudicators": bundle.model_adjudicators,
        "corpus_bound": submission.corpus_sha256 == bundle.corpus_sha256,
        "graded_split": split,
        "resamples": resamples,
        "seed": seed,
        "entries": len(submission.semantic),
        "invalid_entries": rows(con, "SELECT count(*) AS n FROM semantic_answers WHERE invalid IS NOT NULL")[0]["n"],
        "fields": rows(con, "SELECT * FROM semantic_grade"),
    }
    if split != "test":  # the held-out split gives figures only
        report["first_incorrect"] = rows(
            con, f"SELECT id, field, gold, submitted FROM semantic_results WHERE NOT correct "
                 f"ORDER BY record_index, field_index LIMIT {DETAIL_RECORDS}")  # fmt: skip
        report["first_invalid"] = rows(
            con, f"SELECT position, id, field, invalid AS reason FROM semantic_answers "
                 f"WHERE invalid IS NOT NULL ORDER BY position LIMIT {DETAIL_RECORDS}")  # fmt: skip
    return report


def overall_accuracy(report: dict[str, Any]) -> float:
    """The share of every graded record's adjudicated fields answered right (0 when none is
    graded): the semantic half of the service's one held-out score."""
    records = sum(f["records"] or 0 for f in report["fields"])
    return sum((f["accuracy"] or 0) * (f["records"] or 0) for f in report["fields"]) / records if records else 0.0


def _interval(field: dict[str, Any], name: str) -> str:
    value = field[name]
    if value is None:
        return "-"
    return f"{value:.3f} [{field[name + '_low']:.3f}, {field[name + '_high']:.3f}]"


def summary_lines(report: dict[str, Any]) -> list[str]:
    """A line per field: accuracy with its interval beside the ceiling measured on the
    records graded (and a mark above it), the gold's weakness where it has one."""
    lines = []
    for f in report["fields"]:
        weak = f"; WEAK GOLD: {f['weak']}" if f["weak"] else ""
        if not f["records"]:  # no adjudicated gold on this split: nothing to grade, no figure to show
            lines.append(f"semantic {f['field']}: not graded (no {report['graded_split']} record has adjudicated gold)"
                         f"{weak}")  # fmt: skip
            continue
        ceiling = f["ceiling_note"] or _interval(f, "ceiling")
        above = " ABOVE THE CEILING" if f["above_ceiling"] else ""
        lines.append(f"semantic {f['field']}: accuracy {_interval(f, 'accuracy')} over {f['records']} "
                     f"{report['graded_split']} records (ceiling {ceiling}{above}), macro-F1 "
                     f"{_interval(f, 'macro_f1')}, coverage {_interval(f, 'coverage')}{weak}")  # fmt: skip
    if report["invalid_entries"]:
        lines.append(f"semantic: {report['invalid_entries']} invalid entries graded as no answer")
    return lines


def table_lines(report: dict[str, Any]) -> list[str]:
    """The per-field lines, then each field's labels: precision, recall, F1."""
    lines = summary_lines(report)
    lines.append(f"{'field':<20}{'label':<22}{'gold':>6}{'given':>7}{'prec':>8}{'recall':>8}{'F1':>8}")
    for f in report["fields"]:
        for label in f["labels"] or []:
            cells = [("-" if label[k] is None else f"{label[k]:.3f}") for k in ("precision", "recall", "f1")]
            lines.append(f"{f['field']:<20}{label['label']:<22}{label['gold']:>6}{label['given']:>7}"
                         f"{cells[0]:>8}{cells[1]:>8}{cells[2]:>8}")  # fmt: skip
    return lines
