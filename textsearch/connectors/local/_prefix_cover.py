"""The prefixes covering a range of digit strings (the tantivy engine's range filters).

`interval_covers` gives every prefix that covers an interval, from the bounds alone.

A range value is indexed as the 20 prefixes of its order-preserving digits (see
``_tantivy._range_tokens``), so a range filter is an OR of prefix terms. Given the sorted
distinct digit strings of a field (one listing of the term dictionary per index generation),
`present_cover` finds the prefixes from the values alone: a new bound costs two binary
searches and a few string comparisons, with no look into the index.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

__all__ = ["Cover", "interval_covers", "present_cover"]

_HEX = "0123456789abcdef"
_DIGITS = 20
_TOP = 16**_DIGITS - 1
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


Cover = tuple[str, str]  # (parent prefix, digits allowed after it)


def _side(digits: str, depth: int, above: bool) -> tuple[str, list[Cover]]:
    """The strings under ``digits[:depth + 1]`` that are >= ``digits`` (``above``) or <=:
    the bound's own prefix and its siblings at each level below ``depth``."""
    # digits = head + "0"*n: ">= digits" is ">= head" (and "<=" with trailing "f"s)
    head = digits.rstrip("0" if above else "f")
    if len(head) <= depth + 1:
        return digits[: depth + 1], []
    covers: list[Cover] = []
    for i in range(len(head) - 1, depth, -1):
        at = _HEX.index(head[i])
        allowed = _HEX[at + 1 :] if above else _HEX[:at]
        if allowed:
            covers.append((head[:i], allowed))
    return head, covers


def interval_covers(low: int, high: int) -> tuple[list[str], list[Cover]]:
    """The prefixes covering the 20-digit strings from ``low`` to ``high`` (inclusive): whole
    prefixes (``heads``), and per parent prefix the digits whose subtrees are inside."""
    low, high = max(low, 0), min(high, _TOP)
    if low > high:
        return [], []
    a, b = f"{low:020x}", f"{high:020x}"
    depth = next((i for i in range(_DIGITS) if a[i] != b[i]), _DIGITS)
    if depth == _DIGITS:
        return [a], []
    if a[depth + 1 :].strip("0") == "" and b[depth + 1 :].strip("f") == "":
        between = _HEX[_HEX.index(a[depth]) : _HEX.index(b[depth]) + 1]
        return [], [(a[:depth], between)]
    left_head, left = _side(a, depth, above=True)
    right_head, right = _side(b, depth, above=False)
    middle = _HEX[_HEX.index(a[depth]) + 1 : _HEX.index(b[depth])]
    covers = left + right + ([(a[:depth], middle)] if middle else [])
    return [left_head, right_head], covers
