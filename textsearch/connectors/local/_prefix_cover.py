"""The prefixes covering a range of the values a field holds (the tantivy engine's ranges).

A range value is indexed as the 20 prefixes of its order-preserving digits (see
``_tantivy._range_tokens``), so a range filter is an OR of prefix terms. Given the sorted
distinct digit strings of a field (one listing of the term dictionary per index generation),
`present_cover` finds the prefixes from the values alone: a new bound costs two binary
searches and a few string comparisons, with no look into the index.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

__all__ = ["present_cover"]

# Greater than every hex digit: ``prefix + _PAST`` sorts after every string under ``prefix``.
_PAST = "g"


def _shared(a: str, b: str) -> int:
    """The length of the common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def present_cover(values: Sequence[str], low: str, high: str) -> list[str]:
    """Prefixes whose values all lie in ``low..high`` and that hold every value there.

    Args:
        values: Sorted, distinct digit strings of one length (what the field holds).
        low: The smallest digit string in the range (inclusive), of the same length.
        high: The largest (inclusive).

    Returns:
        Prefixes, left to right: each is the shortest prefix of the first value not yet
        covered that no value outside the range shares, so that a prefix term never
        matches a value outside it.
    """
    first = bisect_left(values, low)
    end = bisect_right(values, high)
    before = values[first - 1] if first > 0 else ""
    after = values[end] if end < len(values) else ""
    out: list[str] = []
    at = first
    while at < end:
        value = values[at]
        # Values outside the range sit only before ``first`` or from ``end`` on; the sorted
        # order puts the nearest of each side next to the range, so a prefix that neither
        # neighbour has is held by values inside the range only.
        length = 1 + max(_shared(value, before), _shared(value, after))
        prefix = value[:length]
        out.append(prefix)
        at = bisect_left(values, prefix + _PAST, at, end)
    return out
