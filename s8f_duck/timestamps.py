"""RFC 3339 timestamps parsed and written back as Go's time package does (SPEC §1, §6).

Go's strict RFC 3339 parser: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)`, year 0000–9999,
day checked against the month, fraction digits past the ninth dropped. Go writes a parsed
time in its own offset (`Z` when the offset is zero) with trailing fraction zeros trimmed.
"""

from __future__ import annotations

from typing import NamedTuple


class Timestamp(NamedTuple):
    text: str  # as Go's MarshalJSON writes the parsed time
    epoch_s: int  # UTC seconds since 1970-01-01, for ordering by instant
    nanos: int


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _num(s: str, lo: int, hi: int) -> int:
    if not (s.isascii() and s.isdigit()):
        raise ValueError
    n = int(s)
    if not lo <= n <= hi:
        raise ValueError
    return n


def parse(value: str) -> Timestamp:
    """Parse an RFC 3339 timestamp; raise ValueError when Go's parser would refuse it."""
    s = value
    if len(s) < 19 or (s[4], s[7], s[10], s[13], s[16]) != ("-", "-", "T", ":", ":"):
        raise ValueError(f"not an RFC 3339 timestamp: {value!r}")
    try:
        year = _num(s[0:4], 0, 9999)
        month = _num(s[5:7], 1, 12)
        day = _num(s[8:10], 1, _days_in(month, year))
        hour, minute, sec = _num(s[11:13], 0, 23), _num(s[14:16], 0, 59), _num(s[17:19], 0, 59)
        rest = s[19:]
        fraction = ""
        if len(rest) >= 2 and rest[0] == "." and rest[1].isascii() and rest[1].isdigit():
            n = 1
            while n < len(rest) and rest[n].isascii() and rest[n].isdigit():
                n += 1
            fraction, rest = rest[1:n][:9], rest[n:]
        if rest == "Z":
            offset = 0
        elif len(rest) == 6 and rest[0] in "+-" and rest[3] == ":":
            offset = (_num(rest[1:3], 0, 23) * 60 + _num(rest[4:6], 0, 59)) * 60
            offset = -offset if rest[0] == "-" else offset
        else:
            raise ValueError
    except ValueError:
        raise ValueError(f"not an RFC 3339 timestamp: {value!r}") from None
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    epoch = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec - offset
    frac_text = f".{nanos:09d}".rstrip("0") if nanos else ""
    if offset == 0:
        zone = "Z"
    else:
        sign = "-" if offset < 0 else "+"
        zone = f"{sign}{abs(offset) // 3600:02d}:{abs(offset) // 60 % 60:02d}"
    text = f"{s[:19]}{frac_text}{zone}"
    return Timestamp(text, epoch, nanos)
