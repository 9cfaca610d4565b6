"""The loop guard: a model asking the same search again and again is told so, not charged."""

from __future__ import annotations

import threading
from collections import OrderedDict
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


#: Sessions whose last call a guard remembers (the oldest is forgotten first).
MAX_SESSIONS = 1024


class RepeatGuard:
    """Counts identical consecutive answered calls of one search function, per session.

    Two calls are identical when their queries match after case folding and whitespace
    collapsing, and their effective options (``top``, ``skip``, filter) are equal, so a
    model paging with ``skip`` is never stopped. Only calls that were answered with
    results count: an error (an index still being built, a timeout) asks for a retry, and
    the retry is not a repeat. Each session (an MCP connection; ``None`` for direct calls)
    has its own count, so two clients asking the same question never stop each other.
    Safe to share between threads.
    """

    def __init__(self, max_repeats: int) -> None:
        self.max_repeats = max_repeats
        self._lock = threading.Lock()
        self._last: OrderedDict[Hashable, tuple[Hashable, int]] = OrderedDict()

    @staticmethod
    def _key(parsed: ParsedArguments) -> Hashable:
        options = parsed.options
        return (
            " ".join(parsed.query.casefold().split()),
            options.top,
            options.skip,
            options.filter,
        )

    def repeated(self, parsed: ParsedArguments, session: Hashable = None) -> int:
        """How many identical calls in a row this one makes, when it reaches the limit, else 0.

        Only looks: `record` counts a call once it has been answered.
        """
        key = self._key(parsed)
        with self._lock:
            last, count = self._last.get(session, (None, 0))
        count = count + 1 if key == last else 1
        return count if count >= self.max_repeats else 0

    def record(self, parsed: ParsedArguments, session: Hashable = None) -> None:
        """Count an answered call of ``session``."""
        key = self._key(parsed)
        with self._lock:
            last, count = self._last.pop(session, (None, 0))
            self._last[session] = (key, count + 1 if key == last else 1)
            while len(self._last) > MAX_SESSIONS:
                self._last.popitem(last=False)


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
