"""The loop guard: a model asking the same search again and again is told so, not charged."""

from __future__ import annotations

import threading
from collections.abc import Hashable

from textsearch.errors import ConfigurationError
from textsearch.plugins._parameters import ParsedArguments

__all__ = ["DEFAULT_MAX_REPEATS", "RepeatGuard"]

#: Default of ``create_search_function(max_repeats=...)``.
DEFAULT_MAX_REPEATS = 3


def check_max_repeats(value: object) -> int | None:
    """``None`` or a whole number >= 2, else ``ConfigurationError``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise ConfigurationError(
            f"max_repeats must be None (no guard) or a whole number >= 2, got {value!r}"
        )
    return value


class RepeatGuard:
    """Counts identical consecutive calls of one search function.

    Two calls are identical when their queries match after case folding and whitespace
    collapsing, and their effective options (``top``, ``skip``, filter) are equal, so a
    model paging with ``skip`` is never stopped. Safe to share between threads.
    """

    def __init__(self, max_repeats: int) -> None:
        self.max_repeats = max_repeats
        self._lock = threading.Lock()
        self._last: Hashable = None
        self._count = 0

    def repeated(self, parsed: ParsedArguments) -> int:
        """Record a call; the number of identical calls in a row when it is at the limit, else 0."""
        options = parsed.options
        key = (" ".join(parsed.query.casefold().split()), options.top, options.skip, options.filter)
        with self._lock:
            self._count = self._count + 1 if key == self._last else 1
            self._last = key
            count = self._count
        return count if count >= self.max_repeats else 0


def repeat_message(query: str, count: int) -> str:
    """The tool result sent instead of a search the model already made ``count - 1`` times."""
    shown = " ".join(query.split())
    if len(shown) > 80:
        shown = shown[:79] + "…"
    return (
        f'You have asked for "{shown}" {count} times in a row with the same arguments; the '
        "results will not change. Use the results you already have, or search with a "
        "different query."
    )
