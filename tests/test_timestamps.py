"""The rfc3339 and rfc3339_parts macros (sql/macros/reading.sql): RFC 3339 parsed and written back as Go
does (docs/format.md §1, §6)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import NamedTuple

import duckdb
import pytest

from s8f_duck.pipeline.steps import run_steps

_CON = duckdb.connect()
run_steps(_CON, ["macros"])


class Timestamp(NamedTuple):
    text: str
    epoch_s: int
    nanos: int


def parse(text: str) -> Timestamp:
    """The macro's result for one string; ValueError where it gives NULL (Go refuses)."""
    query = "SELECT rfc3339(parts) FROM (SELECT rfc3339_parts(s) AS parts FROM (SELECT ?::VARCHAR AS s))"
    (value,) = _CON.execute(query, [text]).fetchone()  # type: ignore[misc]
    if value is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    return Timestamp(value["text"], value["epoch_s"], value["nanos"])

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def zone(hours: int, minutes: int = 0) -> timezone:
    """A fixed offset; minutes carry the sign of hours."""
    return timezone(timedelta(hours=hours, minutes=minutes))


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"),
        ("2026-01-02T03:04:05.000Z", "2026-01-02T03:04:05Z"),
        ("2026-01-02T03:04:00.500+02:00", "2026-01-02T03:04:00.5+02:00"),
        ("2026-01-02T03:04:05.120-05:30", "2026-01-02T03:04:05.12-05:30"),
        ("2026-01-02T03:04:05+00:00", "2026-01-02T03:04:05Z"),
        ("2026-01-02T03:04:05-00:00", "2026-01-02T03:04:05Z"),
        ("2026-01-02T03:04:05.000+00:00", "2026-01-02T03:04:05Z"),
        ("2026-01-02T03:04:05-05:30", "2026-01-02T03:04:05-05:30"),
        ("2026-01-02T03:04:05+23:59", "2026-01-02T03:04:05+23:59"),
        ("2026-01-02T03:04:05.123456789Z", "2026-01-02T03:04:05.123456789Z"),
        ("2026-01-02T03:04:05.1234567891Z", "2026-01-02T03:04:05.123456789Z"),
        ("2026-01-02T03:04:05.12345678999999Z", "2026-01-02T03:04:05.123456789Z"),
        ("2026-01-02T03:04:05.1000000009Z", "2026-01-02T03:04:05.1Z"),
        ("2026-01-02T03:04:05.000000001Z", "2026-01-02T03:04:05.000000001Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z"),
        ("2026-12-31T23:59:59Z", "2026-12-31T23:59:59Z"),
    ],
)
def test_written_back_as_go_does(text: str, written: str) -> None:
    assert parse(text).text == written


@pytest.mark.parametrize(
    ("text", "instant", "nanos"),
    [
        ("2026-01-02T03:04:05Z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc), 0),
        ("1970-01-01T00:00:00Z", datetime(1970, 1, 1, tzinfo=timezone.utc), 0),
        ("1970-01-01T00:00:00+01:00", datetime(1970, 1, 1, tzinfo=zone(1)), 0),
        ("1969-12-31T23:59:59.5Z", datetime(1969, 12, 31, 23, 59, 59, tzinfo=timezone.utc), 500_000_000),
        ("2026-01-01T10:00:00+05:00", datetime(2026, 1, 1, 10, tzinfo=zone(5)), 0),
        ("2026-01-02T03:04:05.25-05:30", datetime(2026, 1, 2, 3, 4, 5, tzinfo=zone(-5, -30)), 250_000_000),
        ("2024-02-29T23:59:59.999999999-05:00", datetime(2024, 2, 29, 23, 59, 59, tzinfo=zone(-5)), 999_999_999),
        ("2000-02-29T12:00:00+14:00", datetime(2000, 2, 29, 12, tzinfo=zone(14)), 0),
        ("2100-03-01T00:00:00Z", datetime(2100, 3, 1, tzinfo=timezone.utc), 0),
        ("0001-01-01T00:00:00Z", datetime(1, 1, 1, tzinfo=timezone.utc), 0),
    ],
)
def test_epoch_seconds_and_nanos(text: str, instant: datetime, nanos: int) -> None:
    parsed = parse(text)
    assert (parsed.epoch_s, parsed.nanos) == ((instant - EPOCH) // timedelta(seconds=1), nanos)


def instant(text: str) -> tuple[int, int]:
    parsed = parse(text)
    return parsed.epoch_s, parsed.nanos


def test_ordering_is_by_instant_not_by_string() -> None:
    earlier, later = "2026-01-01T10:00:00+05:00", "2026-01-01T06:00:00Z"
    assert earlier > later  # as strings
    assert instant(earlier) < instant(later)
    assert instant("2026-01-01T07:00:00+01:00") == instant(later) == instant("2026-01-01T00:30:00-05:30")
    assert instant("2026-01-01T06:00:00.000000001Z") > instant(later)


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-30T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:60:00Z",
        "2026-01-01T00:00:60Z",
        "2026-01-01t00:00:00Z",
        "2026-01-01T00:00:00z",
        "2026-01-01 00:00:00Z",
        "2026-01-01T00:00:00",
        "2026-01-01T00:00:00+24:00",
        "2026-01-01T00:00:00+05:60",
        "2026-01-01T00:00:00+0500",
        "2026-01-01T00:00:00+05",
        "2026-01-01T00:00:00+5:00",
        "2026-01-01T00:00:00,5Z",
        "2026-01-01T00:00:00.Z",
        "2026-01-01T00:00:00Zjunk",
        "2026-01-01T00:00:00Z ",
        " 2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00+05:00junk",
        "",
        "2026-01-01T1:00:00Z",
        "2026-1-01T00:00:00Z",
        "26-01-01T00:00:00Z",
        "٢٠٢٦-01-01T00:00:00Z",
        "2026-01-01",
    ],
)
def test_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        parse(text)
