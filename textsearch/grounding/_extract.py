"""A page's main content as text: trafilatura when installed, else the built-in converter.

Whole-page converters keep menus, cookie banners and footers; a main-content extractor keeps
the article. ``trafilatura`` (Apache-2.0, the ``fetch`` extra) is the best-scoring open one on
article-extraction benchmarks, so it is used when installed; the standard-library converter
(``textsearch._html``) is the fallback, and is used whenever trafilatura finds nothing or the
page is larger than `TRAFILATURA_MAX_CHARS`.
Both are CPU-bound and run in a worker thread (see ``fetch._fetch_one``).
"""

from __future__ import annotations

import logging
import re
from html import unescape
from typing import Any, Literal

from textsearch._html import html_to_text
from textsearch.errors import InvalidRequestError

__all__ = ["EXTRACTORS", "Extractor", "check_extractor", "extract_main_text"]

logger = logging.getLogger("textsearch.grounding.fetch")

Extractor = Literal["auto", "trafilatura", "builtin"]
EXTRACTORS: tuple[str, ...] = ("auto", "trafilatura", "builtin")
_INSTALL_HINT = 'pip install "textsearch-sdk[fetch]"'
#: Largest HTML (in characters) given to trafilatura: its cost grows faster than the page
#: (measured on dense markup: 1 s for 0.24 MB, 4.7 s for 1 MB, 30 s for 2.4 MB), so beyond
#: this the built-in converter (about 1 s per MB) keeps a page well within its deadline.
TRAFILATURA_MAX_CHARS = 500_000
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


def _trafilatura() -> Any | None:
    try:
        import trafilatura
    except ImportError:
        return None
    return trafilatura


def check_extractor(extractor: object) -> Extractor:
    """Validate ``extractor`` before any download.

    Raises:
        InvalidRequestError: Not one of `EXTRACTORS`.
        ImportError: ``"trafilatura"`` asked for but not installed (names the extra).
    """
    if extractor not in EXTRACTORS:
        raise InvalidRequestError(
            f"fetch_pages: extractor must be one of {', '.join(EXTRACTORS)}, got {extractor!r}"
        )
    if extractor == "trafilatura" and _trafilatura() is None:
        raise ImportError(f"extractor='trafilatura' needs the fetch extra: {_INSTALL_HINT}")
    chosen: Extractor = extractor  # type: ignore[assignment]
    return chosen


def extract_main_text(html: str, extractor: Extractor) -> tuple[str | None, str]:
    """``(title, text)`` of an HTML page: its main content when an extractor finds it."""
    module = _trafilatura() if extractor != "builtin" else None
    if module is not None and len(html) <= TRAFILATURA_MAX_CHARS:
        try:
            document = module.bare_extraction(
                html,
                # Grounding wants no menus or footers: precision over recall.
                favor_precision=True,
                # Without the second-opinion algorithms and the date/author metadata it is
                # 2-3 times faster, with the same main text on article pages.
                fast=True,
                include_comments=False,
                include_tables=True,
                include_images=False,
                include_links=False,
                with_metadata=False,
            )
        except Exception as exc:  # a parser failure on one page falls back, never raises
            logger.debug("trafilatura failed (%s); using the built-in converter", exc)
            document = None
        text = getattr(document, "text", None) if document is not None else None
        if isinstance(text, str) and text.strip():
            # The page's own <title> names it, as with the built-in converter.
            # One block a line there; a blank line between blocks, as the built-in writes.
            blocks = [line.strip() for line in text.splitlines() if line.strip()]
            return _title(html), "\n\n".join(blocks)
    return html_to_text(html)


def _title(html: str) -> str | None:
    match = _TITLE.search(html, 0, 65_536)
    if match is None:
        return None
    title = " ".join(unescape(match.group(1)).split())
    return title or None
