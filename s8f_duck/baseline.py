"""`s8f-duck baseline`: the exact SQL candidate (seed: "a fair SQL/search baseline").

It is given the public corpus and nothing else: there is no parameter through which an
answer bundle could reach it. It loads the public records into DuckDB and answers every
question with freeze's own SQL (steps.BASELINE_STEPS): state and labels from the visible
metadata, references, duplicate targets and cues by the same regular expressions,
aggregates by GROUP BY / ORDER BY.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from .artifacts import Outputs, answers_document, write_text
from .bundle import SUBMISSION_SCHEMA
from .gojson import dumps
from .progress import Progress
from .public import load_public
from .steps import BASELINE_STEPS, register, run_steps


def baseline(public_path: Path, output_path: Path, progress: Progress | None = None) -> int:
    """Write a submission computed from the public corpus alone; return its answer count."""
    progress = progress or Progress("baseline", enabled=False)
    progress.step("load public corpus")
    corpus = load_public(public_path)
    outputs = Outputs()
    try:
        temp = outputs.temp_for(output_path)
        with duckdb.connect() as con:
            register(con, corpus.tables)
            run_steps(con, BASELINE_STEPS, progress)
            progress.step("write submission")
            submission = {**answers_document(con, corpus.sha256), "schema": SUBMISSION_SCHEMA}
            write_text(temp, dumps(submission))
        outputs.commit()
    finally:
        outputs.discard()
    progress.done()
    return len(submission["answers"])
