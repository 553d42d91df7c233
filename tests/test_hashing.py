"""sha256_hex gives DuckDB's sha256 digest, a row at a time and a column at a time."""

from __future__ import annotations

import duckdb
import pytest

from s8f_duck.pipeline import hashing

TEXTS = ["", "a", "é ſ İ \u2028 \x00 \U0001f600", "x" * 5000, "<b>&amp;</b>\n\t\"q\""]


@pytest.mark.parametrize("columns", [False, True], ids=["rows", "columns"])
def test_sha256_hex_is_duckdb_sha256(columns: bool) -> None:
    con = duckdb.connect()
    hashing.register(con, columns=columns)
    hashing.register(con, columns=columns)  # defining it again replaces it
    con.execute("CREATE TABLE t AS SELECT unnest(?) AS s", [TEXTS])
    # a slice with an offset and a NULL, as DuckDB hands over the chunks of a large scan
    query = "SELECT s, sha256_hex(s) = sha256(s), sha256_hex(s) IS NULL FROM (SELECT s FROM t UNION ALL SELECT NULL) OFFSET 1"
    result = con.execute(query).fetchall()
    assert len(result) == len(TEXTS)
    assert all(same or (s is None and null) for s, same, null in result)


def test_sha256_hex_over_many_chunks() -> None:
    con = duckdb.connect()
    hashing.register(con, columns=True)
    query = "SELECT count(*) FILTER (WHERE sha256_hex(s) <> sha256(s)), count(*) FROM (SELECT repeat('ab', range % 97) || range AS s FROM range(20000))"
    assert con.execute(query).fetchall() == [(0, 20000)]
