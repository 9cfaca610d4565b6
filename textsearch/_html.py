"""HTML to readable text with the standard library's parser.

Used by the local index (``.html`` files) and by full-page fetching. The standard
parser is chosen over third-party extractors to keep the core dependency-free; it is
tolerant of broken markup and fast enough for pages of a few MiB.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Content that is never text for a reader.
_SKIP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "math",
        "iframe",
        "object",
        "canvas",
        "head",
        "select",
        "button",
    }
)
# Page chrome: dropped when the page has a <main> or <article> we can use instead,
# and always when it is navigation.
_CHROME = frozenset({"nav", "header", "footer", "aside", "form"})
_BLOCK = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "br",
        "li",
        "ul",
        "ol",
        "tr",
        "table",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "dd",
        "dt",
        "dl",
        "hr",
        "figure",
        "figcaption",
        "td",
        "th",
        "title",
        "body",
        "html",
    }
)
_VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANKS = re.compile(r"\n{3,}")


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.skip_depth = 0
        self.chrome_depth = 0
        self.main_depth = 0
        self.in_title = False
        self.in_h1 = False
        self.title_parts: list[str] = []
        self.h1_parts: list[str] = []
        self.all_parts: list[str] = []
        self.main_parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag in _BLOCK or tag == "hr":
                self._emit("\n")
            return
        self.stack.append(tag)
        if tag == "title":
            self.in_title = True
        elif tag in _SKIP:
            self.skip_depth += 1
        elif tag in _CHROME:
            self.chrome_depth += 1
        elif tag in ("main", "article"):
            self.main_depth += 1
        elif tag == "h1" and not self.h1_parts:
            self.in_h1 = True
        if tag in _BLOCK:
            self._emit("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or tag not in self.stack:
            return
        # Close everything opened after the matching start tag (tolerates bad nesting).
        while self.stack:
            top = self.stack.pop()
            self._close(top)
            if top == tag:
                break

    def _close(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag in _SKIP:
            self.skip_depth -= 1
        elif tag in _CHROME:
            self.chrome_depth -= 1
        elif tag in ("main", "article"):
            self.main_depth -= 1
        elif tag == "h1":
            self.in_h1 = False
        if tag in _BLOCK:
            self._emit("\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
            return
        if self.skip_depth > 0:
            return
        if self.in_h1:
            self.h1_parts.append(data)
        self._emit(data)

    def _emit(self, text: str) -> None:
        if self.skip_depth > 0 or self.in_title:
            return
        if self.chrome_depth == 0:
            self.all_parts.append(text)
        if self.main_depth > 0:
            self.main_parts.append(text)


def _tidy(parts: list[str]) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def html_to_text(html: str) -> tuple[str | None, str]:
    """Return ``(title, text)`` for an HTML document.

    The title is the ``<title>``, else the first ``<h1>``. The text drops scripts, styles,
    navigation and other page chrome; when the page marks its main content with ``<main>``
    or ``<article>`` and that holds a fair share of the text, only that is kept.
    """
    parser = _Extractor()
    try:
        parser.feed(html)
        parser.close()
    except AssertionError:  # pragma: no cover - the stdlib parser is lenient; belt and braces
        pass
    title = _SPACES.sub(" ", "".join(parser.title_parts)).strip() or None
    if title is None:
        title = _SPACES.sub(" ", "".join(parser.h1_parts)).strip() or None
    everything = _tidy(parser.all_parts)
    main = _tidy(parser.main_parts)
    text = main if main and len(main) >= 0.25 * len(everything) else everything
    return title, text
