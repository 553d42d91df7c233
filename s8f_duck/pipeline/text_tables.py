"""Rows as the commands print them: CSV, or a table aligned in columns."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any


def csv_text(names: Sequence[str], data: Sequence[Sequence[Any]]) -> str:
    """A header line and the rows, NULL as an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows(["" if v is None else v for v in row] for row in data)
    return buffer.getvalue().rstrip("\n")


def aligned(cells: Sequence[Sequence[str]]) -> str:
    """Rows of text cells, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells)
