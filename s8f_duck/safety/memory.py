"""The memory DuckDB may use, as the user set it: read by the pipeline's connections and
named by failures.py when memory runs out."""

from __future__ import annotations

import os

MEMORY_LIMIT_ENV = "S8F_DUCK_MEMORY_LIMIT"
DEFAULT_MEMORY_LIMIT = "3GB"


def memory_limit() -> str:
    """The configured DuckDB memory limit, as DuckDB reads it (e.g. "3GB")."""
    return os.environ.get(MEMORY_LIMIT_ENV, DEFAULT_MEMORY_LIMIT)
