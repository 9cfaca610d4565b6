"""The values a range clause compares: numbers, and ISO-8601 dates read as instants.

One definition of "a date" for every store: the strict pattern below, read by
`instant_of` into whole microseconds since 1970-01-01T00:00:00Z. A date without a
time is midnight UTC; a time without an offset is UTC. Stores that cannot read dates
themselves are written a companion number (see the vector connectors), and the SQL stores
test a stored string against `ISO_PATTERN` before they convert it, so a string that
is not a date never raises and never matches.
"""

from __future__ import annotations

import functools
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Literal

from textsearch.errors import InvalidRequestError

__all__ = [
    "ISO_PATTERN",
    "MAX_ANY_OF",
    "RANGE_KINDS",
    "RangeBound",
    "cached_instant",
    "check_range_value",
    "datetime_of",
    "instant_of",
    "number_fault",
    "range_bound",
    "utc_text",
]

#: The integers every store keeps and compares exactly (SQLite, PostgreSQL ``bigint``, the
#: vector stores' int64 fields, OData's ``Edm.Int64``).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: Most values one ``any_of`` clause may list.
MAX_ANY_OF = 256
#: The range clause kinds, with the comparison each one makes.
RANGE_KINDS: dict[str, str] = {
    "greater_than": ">",
    "greater_than_or_equal": ">=",
    "less_than": "<",
    "less_than_or_equal": "<=",
}

_YEAR = "(?:[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"
_LEAP = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_DATE = (
    f"(?:{_YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    f"|{_LEAP}-02-29)"
)
_TIME = "[T ](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.][0-9]{1,6})?)?"
_OFFSET = "(?:Z|[+-](?:0[0-9]|1[0-4]):[0-5][0-9])"
#: A date (``2024-05-01``) or a date and time (``2024-05-01T10:30``, ``...:15``,
#: ``...:15.250``, each with an optional ``Z`` or ``+02:00``), with a valid day of month.
#: Written with ``[0-9]`` (never ``\d``) and anchored, so Python and PostgreSQL read it alike.
ISO_PATTERN = f"^{_DATE}(?:{_TIME}{_OFFSET}?)?$"
_PARTS = (
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.]([0-9]{1,6}))?)?"
    r"(Z|([+-])([0-9]{2}):([0-9]{2}))?)?"
)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    # Compiled on first use: a process that reads no date (a search without a date
    # filter) never compiles them.
    return re.compile(ISO_PATTERN), re.compile(_PARTS)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROS = timedelta(microseconds=1)

RangeBound = tuple[Literal["number"], int | float] | tuple[Literal["date"], int]


def datetime_of(text: str) -> datetime | None:
    """The aware UTC datetime a stored string stands for, or ``None`` when it is no date."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    iso, parts_of = _patterns()
    if not iso.fullmatch(text):
        return None
    parts = parts_of.fullmatch(text)
    if parts is None:  # pragma: no cover - ISO_PATTERN admits only what _PARTS reads
        return None
    year, month, day, hour, minute, second, fraction, zone, sign, zh, zm = parts.groups()
    micros = int((fraction or "").ljust(6, "0"))
    offset = timedelta(0)
    if zone and zone != "Z":
        offset = timedelta(hours=int(zh), minutes=int(zm)) * (-1 if sign == "-" else 1)
    moment = datetime(
        int(year),
        int(month),
        int(day),
        int(hour or 0),
        int(minute or 0),
        int(second or 0),
        micros,
        tzinfo=timezone.utc,
    )
    try:
        return moment - offset
    except OverflowError:  # 0001-01-01T00:00+01:00 lies before datetime.min
        return None


def instant_of(text: object) -> int | None:
    """Whole microseconds since the epoch (UTC) of an ISO-8601 string, else ``None``."""
    moment = datetime_of(text) if isinstance(text, str) else None
    if moment is None:
        return None
    return (moment - _EPOCH) // _MICROS


#: `instant_of` with its answers kept: a SQL filter reads the same stored dates again
#: for every candidate row of every search (SQLite's ``textsearch_instant``).
cached_instant = functools.lru_cache(maxsize=65_536)(instant_of)


def number_fault(value: object) -> str | None:
    """What keeps ``value`` from being a number every store keeps and compares alike:
    ``"is not finite"`` (NaN, infinity), ``"does not fit in 64 bits"`` (an integer past
    int64), else ``None`` (a usable number, or no number at all: a ``bool`` is none here).

    The one check behind metadata values, filter values and range bounds, so that a value
    one path accepts is never one another path refuses.
    """
    if isinstance(value, float):
        return None if math.isfinite(value) else "is not finite"
    if isinstance(value, int) and not isinstance(value, bool):
        return None if INT64_MIN <= value <= INT64_MAX else "does not fit in 64 bits"
    return None


def check_range_value(kind: str, field_name: str, value: object) -> int | float | str:
    """The bound of a range clause, checked when the clause is built.

    Raises:
        InvalidRequestError: Not a finite number within 64 bits or an ISO-8601 date.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidRequestError(
            f"{kind}({field_name!r}, ...) takes a number or an ISO-8601 date "
            f"(2024-05-01, 2024-05-01T10:30:00Z), not {type(value).__name__}"
        )
    fault = number_fault(value)
    if fault is not None:
        digits = len(str(value).lstrip("-"))
        shown = repr(value) if isinstance(value, float) else f"a number of {digits} digits"
        raise InvalidRequestError(
            f"{kind}({field_name!r}, ...): a range bound must be a finite number that fits in "
            f"64 bits; {shown} {fault}"
        )
    if isinstance(value, str) and instant_of(value) is None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise InvalidRequestError(
            f"{kind}({field_name!r}, {shown!r}): an invalid range value; a string bound "
            "must be an ISO-8601 date or date and time (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS[.f]], "
            "optionally with Z or +HH:MM)"
        )
    return value


def range_bound(value: int | float | str) -> RangeBound:
    """What a checked bound compares: ``("number", v)`` or ``("date", microseconds)``."""
    if isinstance(value, str):
        instant = instant_of(value)
        assert instant is not None  # checked when the clause was built
        return ("date", instant)
    return ("number", value)


def utc_text(instant: int) -> str:
    """An instant as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (what OData reads as a DateTimeOffset)."""
    moment = _EPOCH + timedelta(microseconds=instant)
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S.%f}Z"
