"""HTML to readable text, and to sections by heading, in one regex pass over the tags.

Used by the local index (``.html`` files) and by full-page fetching. No third-party parser:
the core stays dependency-free. The standard library's ``html.parser`` makes several Python
calls per token; one regular-expression scan over the tags, which ignores inline tags, takes
2.4x less CPU on 23.7 MB of documentation pages (docs/performance.md) and is as tolerant of
broken markup (unclosed tags close at their parent's end, stray end tags are ignored).
"""

from __future__ import annotations

import re
from typing import Any

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


def _tidy(parts: list[str]) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


# -- the single pass ----------------------------------------------------------------------------

_TAG = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"
    r"|<![^>]*>|<\?[^>]*>",
    re.DOTALL,
)
_ID_ATTR = re.compile(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_RAW_END = {tag: re.compile(rf"</{tag}\s*>", re.IGNORECASE) for tag in _SKIP}
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_SELF_CLOSING_SIBLINGS = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "option"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Tags that change what text is kept or where sections start; all others are skipped.
_STATEFUL = _SKIP | _CHROME | _BLOCK | _HEADINGS | {"title", "main", "article", "a", "br", "hr"}


def _attr_id(attrs: str) -> str | None:
    match = _ID_ATTR.search(attrs) if attrs else None
    if match is None:
        return None
    return next((g for g in match.groups() if g), None)


def html_sections(html: str) -> tuple[str | None, list[tuple[str | None, str | None, str]]]:
    """Return ``(title, [(heading, anchor, text), ...])`` for an HTML document, in one pass.

    Sections start at each ``<h1>``..``<h6>``; ``anchor`` is the heading's ``id`` (or that of an
    anchor inside it or right before it), else ``None``. Scripts, styles and page chrome are
    dropped; when ``<main>``/``<article>`` holds a fair share of the text, only it is kept.
    """
    from html import unescape

    title_parts: list[str] = []
    # Two versions are built side by side (the whole page, and only its main content);
    # the choice between them is made at the end. A section: [heading, anchor, parts].
    whole: list[list[Any]] = [[None, None, []]]
    inside: list[list[Any]] = [[None, None, []]]
    whole_parts: list[str] = whole[-1][2]
    main_parts: list[str] = inside[-1][2]
    whole_chars = main_chars = 0
    stack: list[str] = []
    # How many of each tag are open: `tag in stack` in O(1), since pages often leave <p>,
    # <li> or <td> unclosed and the stack grows deep (a scan per end tag was quadratic).
    open_count: dict[str, int] = {}
    chrome = main = 0
    in_title = False
    heading_parts: list[str] | None = None
    heading_anchor: str | None = None
    last_anchor: str | None = None
    position = 0
    length = len(html)
    search = _TAG.search
    while position < length:
        match = search(html, position)
        end = match.start() if match else length
        if end > position:
            text = html[position:end]
            if in_title:
                title_parts.append(text)
            elif chrome == 0:
                if heading_parts is not None:
                    heading_parts.append(text)
                else:
                    whole_parts.append(text)
                    whole_chars += len(text)
                    if main:
                        main_parts.append(text)
                        main_chars += len(text)
                if last_anchor is not None and not text.isspace():
                    last_anchor = None
        if match is None:
            break
        position = match.end()
        tag = match.group(2)
        if tag is None:
            continue
        tag = tag.lower()
        if tag not in _STATEFUL:
            continue  # inline markup (span, em, code...): no effect on the text
        if not match.group(1):
            if tag in _SKIP:
                raw_end = _RAW_END[tag].search(html, position)
                stop = raw_end.start() if raw_end else length
                if tag == "head":
                    found = _TITLE.search(html, position, stop)
                    if found:
                        title_parts.append(found.group(1))
                position = raw_end.end() if raw_end else length
                continue
            if tag == "title":
                in_title = True
                continue
            if tag in _VOID:
                whole_parts.append("\n")
                if main:
                    main_parts.append("\n")
                continue
            attrs = match.group(3)
            anchor = _attr_id(attrs) if attrs and ("id" in attrs or "name" in attrs) else None
            if heading_parts is not None and tag in _BLOCK:
                # A block inside a heading means the heading was never closed (<h2>Title<p>..):
                # end it here, or it would swallow the rest of the page.
                heading = _SPACES.sub(" ", unescape("".join(heading_parts))).strip()
                whole.append([heading or None, heading_anchor, []])
                whole_parts = whole[-1][2]
                if main:
                    inside.append([heading or None, heading_anchor, []])
                    main_parts = inside[-1][2]
                heading_parts = None
            if tag in _SELF_CLOSING_SIBLINGS and stack and stack[-1] == tag:
                stack.pop()  # <p>a<p>b, <li>a<li>b: the new one closes the previous one
                open_count[tag] -= 1
            stack.append(tag)
            open_count[tag] = open_count.get(tag, 0) + 1
            if tag in _CHROME:
                chrome += 1
            elif tag == "main" or tag == "article":
                main += 1
            elif tag in _HEADINGS and chrome == 0:
                heading_parts, heading_anchor = [], anchor or last_anchor
                continue
            if anchor and tag in ("a", "section", "div"):
                last_anchor = anchor
                if heading_parts is not None and heading_anchor is None:
                    heading_anchor = anchor
            if tag in _BLOCK:
                whole_parts.append("\n")
                if main:
                    main_parts.append("\n")
        else:
            if tag == "title":
                in_title = False
                continue
            if not open_count.get(tag):
                continue
            while stack:
                top = stack.pop()
                open_count[top] -= 1
                if top in _CHROME:
                    chrome -= 1
                elif top == "main" or top == "article":
                    main -= 1
                elif top in _HEADINGS and heading_parts is not None:
                    heading = _SPACES.sub(" ", unescape("".join(heading_parts))).strip()
                    whole.append([heading or None, heading_anchor, []])
                    whole_parts = whole[-1][2]
                    if main:
                        inside.append([heading or None, heading_anchor, []])
                        main_parts = inside[-1][2]
                    heading_parts = None
                    last_anchor = None
                if top in _BLOCK:
                    whole_parts.append("\n")
                    if main:
                        main_parts.append("\n")
                if top == tag:
                    break
    title = _SPACES.sub(" ", unescape("".join(title_parts))).strip() or None
    chosen = inside if main_chars > 0 and main_chars >= 0.25 * whole_chars else whole
    if title is None:
        title = next((h for h, _, _ in chosen if h), None)
    return title, [(h, a, _tidy([unescape("".join(parts))])) for h, a, parts in chosen]


def html_to_text(html: str) -> tuple[str | None, str]:
    """Return ``(title, text)`` for an HTML document.

    The title is the ``<title>``, else the first heading. The text drops scripts, styles,
    navigation and other page chrome; when the page marks its main content with ``<main>``
    or ``<article>`` and that holds a fair share of the text, only that is kept. Headings
    stay in the text, each on its own line.
    """
    title, sections = html_sections(html)
    parts: list[str] = []
    for heading, _, text in sections:
        if heading:
            parts.append(heading)
        if text:
            parts.append(text)
    return title, "\n\n".join(parts)
