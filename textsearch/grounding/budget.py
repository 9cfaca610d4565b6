"""Size budgets for grounding text: per-result and total, in characters or tokens.

Truncation is always visible (a marker is appended) and only happens at a *cut point*:
after whitespace, or between two characters of a script written without spaces (Chinese,
Japanese, Korean), never inside a word and never inside a citation number such as ``[12]``.
When a total is exceeded, whole results are dropped from the lowest-ranked end before any
result is cut; only when the first result alone is over the total is it cut to fit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from textsearch.errors import InvalidRequestError

__all__ = [
    "DEFAULT_MARKER",
    "Budget",
    "Tokenizer",
    "tiktoken_tokenizer",
    "truncate_text",
]

#: Appended to every cut text, so that a reader (and a model) sees that something is missing.
DEFAULT_MARKER = " [truncated]"

Tokenizer = Callable[[str], "int | Sequence[Any]"]
"""A callable that counts tokens: returns an ``int``, or a sequence of tokens (its length counts),
so ``tiktoken.get_encoding("cl100k_base").encode`` can be passed as it is."""

_CJK = (
    "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f"
)


@functools.cache
def _cjk_char() -> re.Pattern[str]:
    # Compiled on first use (a class this wide costs milliseconds); ASCII never needs it.
    return re.compile(f"[{_CJK}]")


_CITATION = re.compile(r"[\[【]\s*\d[\d,\s\-–]*[\]】]")
# Characters looked at past a character limit when cutting (longer than any citation marker).
_LOOKAHEAD = 64


def _count(tokenizer: Tokenizer, text: str) -> int:
    counted = tokenizer(text)
    if isinstance(counted, int):
        return counted
    return len(counted)


def measure(text: str, tokenizer: Tokenizer | None = None) -> int:
    """Size of ``text``: characters, or tokens when a tokenizer is given."""
    return len(text) if tokenizer is None else _count(tokenizer, text)


#: A word longer than this may be cut inside: a page that is one huge word (a base64 blob, a
#: minified line) keeps some of its text instead of only the marker.
_LONGEST_WORD = 80


def _cut_points(text: str) -> list[int]:
    """Positions where ``text`` may be cut, ascending (0 always included)."""
    inside: set[int] = set()
    for m in _CITATION.finditer(text):
        inside.update(range(m.start() + 1, m.end()))
    points = [0]
    for i in range(1, len(text)):
        if i - points[-1] > _LONGEST_WORD and i not in inside:
            points.append(i)
            continue
        before, after = text[i - 1], text[i]
        ok = (
            after.isspace()
            or before.isspace()
            or (not before.isascii() and bool(_cjk_char().match(before)))
            or (not after.isascii() and bool(_cjk_char().match(after)))
        )
        if ok and i not in inside:
            points.append(i)
    return points


def truncate_text(
    text: str,
    limit: int,
    *,
    tokenizer: Tokenizer | None = None,
    marker: str = DEFAULT_MARKER,
) -> tuple[str, bool]:
    """Cut ``text`` so that it measures at most ``limit``, at a cut point, with a marker.

    Args:
        text: The text to fit.
        limit: The most characters (or tokens, with ``tokenizer``) the result may measure,
            marker included.
        tokenizer: Counts tokens instead of characters.
        marker: Appended when the text is cut (after trailing whitespace is removed).

    Returns:
        ``(text, truncated)``. A text that fits is returned unchanged. When not even the
        marker fits, the result is the empty string (still ``truncated``).

    Raises:
        InvalidRequestError: ``limit`` is negative.
    """
    if limit < 0:
        raise InvalidRequestError(f"a budget limit must be at least 0, got {limit}")
    if measure(text, tokenizer) <= limit:
        return text, False
    if tokenizer is None:
        # In characters, nothing past ``limit`` can be kept: look only a little beyond it
        # (to see whether ``limit`` itself is a cut point, or inside a citation), so a
        # 2 MB text cut to 1,000 characters costs as much as a short one.
        text = text[: limit + _LOOKAHEAD]
    return fit_prefix(text, lambda t: measure(t, tokenizer) <= limit, marker=marker), True


def fit_prefix(text: str, fits: Callable[[str], bool], *, marker: str = DEFAULT_MARKER) -> str:
    """The longest ``text[:cut] + marker`` (at a cut point) for which ``fits`` holds.

    Assumes ``fits`` is monotone (a shorter text fits when a longer one does); the final
    walk-back keeps the answer correct when it is only roughly so. Returns ``""`` when not
    even the marker alone fits.
    """
    points = _cut_points(text)

    def candidate(i: int) -> str:
        head = text[: points[i]].rstrip()
        return head + marker if head else marker.lstrip()

    lo, hi = 0, len(points) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(candidate(mid)):
            lo = mid
        else:
            hi = mid - 1
    while lo > 0 and not fits(candidate(lo)):
        lo -= 1
    result = candidate(lo)
    return result if fits(result) else ""


@dataclass(frozen=True)
class Budget:
    """How much search text may go into a prompt.

    Character limits always apply when set; token limits need ``tokenizer``. ``None`` means
    no limit.

    Attributes:
        max_result_chars: Most characters of one result's text (its snippet or page text).
        max_chars: Most characters of all results together, as rendered.
        max_result_tokens: Most tokens of one result's text.
        max_tokens: Most tokens of all results together, as rendered.
        tokenizer: Counts tokens (see `Tokenizer`); required by the token limits.
        marker: Appended to a cut text.

    Raises:
        InvalidRequestError: A limit is below 1, or a token limit is set without a tokenizer.
    """

    max_result_chars: int | None = None
    max_chars: int | None = None
    max_result_tokens: int | None = None
    max_tokens: int | None = None
    tokenizer: Tokenizer | None = None
    marker: str = DEFAULT_MARKER

    def __post_init__(self) -> None:
        for name in ("max_result_chars", "max_chars", "max_result_tokens", "max_tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise InvalidRequestError(
                    f"Budget.{name} must be a whole number >= 1, not {value!r}"
                )
        if (self.max_result_tokens or self.max_tokens) and self.tokenizer is None:
            raise InvalidRequestError(
                "Budget token limits need a tokenizer, e.g. "
                "Budget(max_tokens=2000, tokenizer=tiktoken_tokenizer())"
            )

    @property
    def unlimited(self) -> bool:
        """True when no limit is set."""
        return not (
            self.max_result_chars or self.max_chars or self.max_result_tokens or self.max_tokens
        )

    def fit_result(self, text: str) -> tuple[str, bool]:
        """Apply the per-result limits to one result's text; returns ``(text, truncated)``."""
        cut = False
        if self.max_result_chars is not None:
            text, c = truncate_text(text, self.max_result_chars, marker=self.marker)
            cut = cut or c
        if self.max_result_tokens is not None:
            text, c = truncate_text(
                text, self.max_result_tokens, tokenizer=self.tokenizer, marker=self.marker
            )
            cut = cut or c
        return text, cut

    def fits_total(self, text: str) -> bool:
        """Whether ``text`` is within the total limits."""
        if self.max_chars is not None and len(text) > self.max_chars:
            return False
        if self.max_tokens is not None and self.tokenizer is not None:
            return _count(self.tokenizer, text) <= self.max_tokens
        return True


def tiktoken_tokenizer(encoding: str = "cl100k_base") -> Tokenizer:
    """A token counter from ``tiktoken`` (the ``tiktoken`` extra).

    Note that tiktoken downloads its encoding files on first use unless they are cached.

    Raises:
        ImportError: tiktoken is not installed (``pip install "textsearch-sdk[tiktoken]"``).
    """
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "token budgets with tiktoken need the tiktoken extra: "
            'pip install "textsearch-sdk[tiktoken]"'
        ) from exc
    enc = tiktoken.get_encoding(encoding)

    def count(text: str) -> int:
        return len(enc.encode(text, disallowed_special=()))

    return count
