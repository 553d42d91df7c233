"""`serve --semantic` refuses a semantic bundle whose test part is too small for the
Ladder's step (sql/service/semantic_ladder.sql): one record's adjudicated labels would
move the held-out score by more than half a step, enough to show as `improved`, and a
client flipping one label at a time would learn the adjudicated test labels."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from s8f_duck.pipeline.steps import SERVICE_SEMANTIC_STEPS, connect, create_table, rows, run_steps
from s8f_duck.safety.errors import UnusableInput


def check_semantic_ladder(path: Path, gold: list[Any], exact_test_records: int, step: float) -> dict[str, Any]:
    """The sizes that decide (semantic_ladder); UnusableInput naming them when they do not fit."""
    with connect() as con:
        create_table(con, "semantic_ladder_gold", {"id": "VARCHAR", "field": "VARCHAR"},
                     [(g.id, g.field) for g in gold if g.split == "test"])  # fmt: skip
        con.execute("SET VARIABLE s8f_ladder_step = ?", [step])
        con.execute("SET VARIABLE s8f_exact_test_records = ?", [exact_test_records])
        run_steps(con, SERVICE_SEMANTIC_STEPS)
        (sizes,) = rows(con, "SELECT * FROM semantic_ladder")
    if not sizes["fits"]:
        least = math.ceil(2 * sizes["record_effect"] * 1000) / 1000
        raise UnusableInput(
            f"{path}: its test part is too small for the Ladder step {step:g}: one test record moves the held-out "
            f"score by up to {sizes['record_effect']:.4f} (1/(2x{sizes['exact_test_records']}) for its exact answer "
            f"+ {sizes['most_labels_per_record']}/(2x{sizes['test_labels']}) for its adjudicated labels; "
            f"{sizes['test_records']} adjudicated test records), more than half the step, so flipping one label "
            f"at a time would show; give --ladder-step {least:g} or more, or a gold of more test records"
        )
    return sizes
