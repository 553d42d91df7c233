"""`s8f-duck baseline`: the exact SQL candidate (seed: "a fair SQL/search baseline").

It is given the public corpus and nothing else: there is no parameter through which an
answer bundle could reach it. It loads the public records into DuckDB and answers every
question with freeze's own SQL (steps.BASELINE_STEPS): state and labels from the visible
metadata, references, duplicate targets and cues by the same regular expressions,
aggregates by GROUP BY / ORDER BY.
"""

from __future__ import annotations

from pathlib import Path

from s8f_duck.corpus.artifacts import SUBMISSION_SCHEMA, Outputs, file_sha256, write_answers
from s8f_duck.pipeline.steps import BASELINE_STEPS, connect, run_steps
from s8f_duck.reading.load import load_public
from s8f_duck.safety import arguments
from s8f_duck.safety.progress import Progress


def baseline(public_path: Path, output_path: Path, progress: Progress | None = None) -> int:
    """Write a submission computed from the public corpus alone; return its answer count."""
    progress = progress or Progress("baseline")
    arguments.check({"--public": public_path}, {"--output": output_path})
    outputs = Outputs([output_path])
    try:
        temp = outputs.temp_for(output_path)
        with connect() as con:
            progress.step("read the public corpus")
            load_public(con, public_path)
            progress.step("answer the questions")
            run_steps(con, BASELINE_STEPS)
            progress.step("write the submission")
            write_answers(con, temp, file_sha256(public_path), SUBMISSION_SCHEMA)
            (count,) = con.execute("SELECT count(*) FROM answers").fetchall()[0]
        outputs.commit()
    finally:
        outputs.discard()
    return count
