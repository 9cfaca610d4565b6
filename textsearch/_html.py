"""HTML to readable text, and to sections by heading, in one regex pass over the tags.

Used by the local index (``.html`` files) and by full-page fetching. No third-party parser:
the core stays dependency-free. The standard library's ``html.parser`` was measured ~10x
slower on documentation pages (it makes a Python call per token), so a single
regular-expression scan over the tags does the work; it is as tolerant of broken markup
(unclosed tags close at their parent's end, stray end tags are ignored).
"""

from __future__ import annotations

import re

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
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


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
    import html as html_module

    unescape = html_module.unescape
    # Events: text pieces and heading starts, each marked with whether it is inside main.
    events: list[tuple[int, str, str | None, bool]] = []  # (kind, text, anchor, in_main)
    title_parts: list[str] = []
    stack: list[str] = []
    chrome = main = 0
    in_title = False
    heading_parts: list[str] | None = None
    heading_anchor: str | None = None
    last_anchor: str | None = None
    position = 0
    length = len(html)
    while position < length:
        match = _TAG.search(html, position)
        end = match.start() if match else length
        if end > position:
            text = html[position:end]
            if in_title:
                title_parts.append(text)
            elif chrome == 0:
                if heading_parts is not None:
                    heading_parts.append(text)
                else:
                    events.append((0, text, None, main > 0))
                if text.strip():
                    last_anchor = None
        if match is None:
            break
        position = match.end()
        closing, tag = match.group(1), match.group(2)
        if tag is None:
            continue
        tag = tag.lower()
        if not closing:
            if tag in _SKIP:
                raw_end = _RAW_END[tag].search(html, position)
                stop = raw_end.start() if raw_end else length
                if tag == "head":
                    found = _TITLE.search(html, position, stop)
                    if found:
                        title_parts.append(found.group(1))
                position = raw_end.end() if raw_end else length
                continue
            anchor = _attr_id(match.group(3))
            if tag == "title":
                in_title = True
                continue
            if tag in _VOID:
                if tag in _BLOCK or tag == "hr":
                    events.append((0, "\n", None, main > 0))
                continue
            stack.append(tag)
            if tag in _CHROME:
                chrome += 1
            elif tag in ("main", "article"):
                main += 1
            elif tag in _HEADINGS and chrome == 0:
                heading_parts, heading_anchor = [], anchor or last_anchor
                continue
            if anchor and tag == "a" or anchor and tag in ("section", "div"):
                last_anchor = anchor
                if heading_parts is not None and heading_anchor is None:
                    heading_anchor = anchor
            if tag in _BLOCK:
                events.append((0, "\n", None, main > 0))
        else:
            if tag == "title":
                in_title = False
                continue
            if tag not in stack:
                continue
            while stack:
                top = stack.pop()
                if top in _CHROME:
                    chrome -= 1
                elif top in ("main", "article"):
                    main -= 1
                elif top in _HEADINGS and heading_parts is not None:
                    heading = _SPACES.sub(" ", unescape("".join(heading_parts))).strip()
                    events.append((1, heading, heading_anchor, main > 0))
                    heading_parts = None
                    last_anchor = None
                if top in _BLOCK:
                    events.append((0, "\n", None, main > 0))
                if top == tag:
                    break
    title = _SPACES.sub(" ", unescape("".join(title_parts))).strip() or None
    main_chars = sum(len(t) for kind, t, _, inside in events if kind == 0 and inside)
    all_chars = sum(len(t) for kind, t, _, _ in events if kind == 0)
    only_main = main_chars > 0 and main_chars >= 0.25 * all_chars
    sections: list[tuple[str | None, str | None, str]] = []
    heading_now: str | None = None
    anchor_now: str | None = None
    parts: list[str] = []
    for kind, text, anchor, inside in events:
        if only_main and not inside:
            continue
        if kind == 1:
            sections.append((heading_now, anchor_now, _tidy([unescape("".join(parts))])))
            heading_now, anchor_now, parts = text or None, anchor, []
            if title is None and text:
                title = text
        else:
            parts.append(text)
    sections.append((heading_now, anchor_now, _tidy([unescape("".join(parts))])))
    return title, sections


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
