"""HTML to sections in one regular-expression pass over the tags: the dependency-free fallback.

The standard library's ``html.parser`` makes several Python calls per token; one scan over
the tags, which ignores inline tags, takes 2.4x less CPU on documentation pages
(docs/performance.md) and is as tolerant of broken markup (unclosed tags close at their
parent's end, stray end tags are ignored). Its output is the same as ``_html_fast``'s (an
HTML5 parser's tree): where the two would read a page differently, this one follows what a
browser does (carriage returns, NUL characters, the newline after ``<pre>``, a ``<head>``
never closed).
"""

from __future__ import annotations

import re
from html import unescape

from textsearch._html._common import (
    ANCHORS,
    BLOCK,
    CHROME,
    HEADINGS,
    MAIN,
    NOT_TEXT_CLASSES,
    SKIP,
    Output,
    Sections,
    decode_html,
)
from textsearch._html._common import one_line as _one_line

__all__ = ["html_sections"]

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
_TAG = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"
    r"|<![^>]*>|<\?[^>]*>",
    re.DOTALL,
)
# `id=` or `name=` as an attribute of its own (not `data-id=`).
_ID_ATTR = re.compile(
    r"""(?:^|\s)(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE
)
_RAW_END = {tag: re.compile(rf"</{tag}\s*>", re.IGNORECASE) for tag in SKIP}
# A <head> never closed ends where the body starts, as in a browser. (Searched for only when
# </head> is missing: an alternation has no literal prefix to scan for, and is slower.)
_BODY_START = re.compile(r"(?=<body[\s>])", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_SELF_CLOSING_SIBLINGS = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "option"})
# Start tags that close an open <p> in HTML5 (<p>text<div>...: the text is a paragraph).
_CLOSES_P = BLOCK - {"br", "li", "tr", "td", "th", "dd", "dt", "title", "body", "html"}
# Tags that change what text is kept or where sections start; all others are skipped.
_STATEFUL = SKIP | CHROME | BLOCK | {"title", "a"}


_CLASS_ATTR = re.compile(r"""(?:^|\s)class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)


def _not_text(attrs: str) -> bool:
    """Whether an element is no text of the page by its class (``NOT_TEXT_CLASSES``) or
    its role (``role="navigation"``, as ``<nav>``)."""
    if "navigation" in attrs and _ROLE_NAVIGATION.search(attrs):
        return True
    found = _CLASS_ATTR.search(attrs)
    if found is None:
        return False
    classes = next((group for group in found.groups() if group is not None), "").split()
    return not _NOT_TEXT.isdisjoint(classes)


_NOT_TEXT = frozenset(NOT_TEXT_CLASSES)
_HINT = re.compile("|".join(["navigation", *NOT_TEXT_CLASSES]))
_ROLE_NAVIGATION = re.compile(r"""(?:^|\s)role\s*=\s*["']?navigation\b""", re.I)
# Elements that never hold one of their own: skipped up to their end (or the next start
# tag of theirs); any other one is left out as page chrome is, on the stack.
_FLAT = frozenset({"a", "span", "td"})
_FLAT_END = {tag: re.compile(rf"</?{tag}(?=[\s/>])", re.I) for tag in _FLAT}


def _hidden(match: re.Match[str]) -> bool:
    """Whether a start tag's element is no text (`_not_text`)."""
    attrs = match.group(3)
    return (
        bool(attrs) and not match.group(1) and _HINT.search(attrs) is not None and _not_text(attrs)
    )


def _flat_end(html: str, position: int, tag: str) -> int:
    """Where an ``<a>``, ``<span>`` or ``<td>`` whose start tag ends at ``position`` ends:
    after its end tag; an ``<a>`` or ``<td>`` at the next start tag of its own too, a
    ``<span>`` counting the spans inside it (Sphinx's ``[source]`` link holds one) within
    ``_SPAN_REACH`` characters, else where it starts (its text kept: broken markup)."""
    pattern = _FLAT_END[tag]
    if tag != "span":
        found = pattern.search(html, position)
        if found is None:
            return len(html)
        if html[found.start() + 1] != "/":
            return found.start()
        end = html.find(">", found.end())
        return len(html) if end == -1 else end + 1
    depth = 1
    for found in pattern.finditer(html, position, position + _SPAN_REACH):
        depth += -1 if html[found.start() + 1] == "/" else 1
        if depth == 0:
            end = html.find(">", found.end())
            return len(html) if end == -1 else end + 1
    return position


_SPAN_REACH = 4_000  # line numbers and source links are short: a bound on each look


def popped(stack: list[str], open_count: dict[str, int], chrome_at: list[int]) -> int:
    """Close the element on top of ``stack``; 1 when it was page chrome, else 0."""
    open_count[stack.pop()] -= 1
    if chrome_at and chrome_at[-1] == len(stack):
        chrome_at.pop()
        return 1
    return 0


def _attr_id(attrs: str) -> str | None:
    # Most tags asked about (links) have neither: substring tests in C spare the regex.
    lowered = attrs.lower()
    if "id" not in lowered and "name" not in lowered:
        return None
    match = _ID_ATTR.search(attrs)
    if match is None:
        return None
    return next((g for g in match.groups() if g), None)


def html_sections(html: str | bytes) -> Sections:
    """Return ``(title, [(heading, anchor, text), ...])`` for an HTML document, in one pass."""
    if isinstance(html, bytes):
        html = decode_html(html)
    elif html.startswith("\ufeff"):
        html = html[1:]
    # What an HTML5 parser does to its input first: CR LF and CR are newlines, NULs go.
    if "\r" in html:
        html = html.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in html:
        html = html.replace("\x00", "")
    title_parts: list[str] = []
    out = Output()  # the whole page and its main content, side by side
    stack: list[str] = []
    # How many of each tag are open: `tag in stack` in O(1), since pages often leave <p>,
    # <li> or <td> unclosed and the stack grows deep (a scan per end tag was quadratic).
    open_count: dict[str, int] = {}
    chrome = 0  # how many elements of page chrome are open (their text is left out)
    chrome_at: list[int] = []  # where on the stack each of them is
    in_title = False
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
                out.text(text)
        if match is None:
            break
        position = match.end()
        tag = match.group(2)
        if tag is None:
            continue
        tag = tag.lower()
        if tag not in _STATEFUL:
            if tag == "code" and out.code and not match.group(1):
                out.split_code()
            elif tag == "span":
                attrs = match.group(3)
                if ("linenos" in attrs or "viewcode" in attrs) and _hidden(match):
                    # a code block's line numbers, Sphinx's "[source]" link
                    position = _flat_end(html, position, tag)
                    continue
            # Inline markup (span, em, code...): no effect on the text, but an id on it
            # inside a heading names the heading (<h2><span id="Usage">Usage</span></h2>).
            if out.heading is not None and not match.group(1):
                attrs = match.group(3)
                inner = _attr_id(attrs) if attrs else None
                if inner:
                    out.heading.inside = inner
            continue
        if not match.group(1):
            if tag in SKIP:
                raw_end = _RAW_END[tag].search(html, position)
                if raw_end is None and tag == "head":
                    raw_end = _BODY_START.search(html, position)
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
                out.newline()
                continue
            attrs = match.group(3)
            hidden = bool(attrs) and _HINT.search(attrs) is not None and _not_text(attrs)
            if hidden and tag in _FLAT:  # a heading's "¶" link, a code block's line numbers
                position = _flat_end(html, position, tag)
                continue
            anchor = _attr_id(attrs) if attrs and (tag in ANCHORS or tag in HEADINGS) else None
            if out.heading is not None and tag in BLOCK:
                # A block inside a heading means the heading was never closed (<h2>Title<p>..):
                # end it here, or it would swallow the rest of the page.
                out.end_heading(unescape)
            if tag in _CLOSES_P and stack and stack[-1] == "p" and tag != "p":
                chrome -= popped(stack, open_count, chrome_at)
                out.newline()
            if tag in _SELF_CLOSING_SIBLINGS and stack and stack[-1] == tag:
                # <p>a<p>b, <li>a<li>b: the new one closes the previous one
                chrome -= popped(stack, open_count, chrome_at)
                if tag in BLOCK:
                    out.newline()
            stack.append(tag)
            open_count[tag] = open_count.get(tag, 0) + 1
            if tag in CHROME or hidden:
                chrome += 1
                chrome_at.append(len(stack) - 1)
            elif tag in MAIN:
                out.main += 1
            elif tag in HEADINGS and chrome == 0:
                out.open_heading(anchor)
                continue
            if anchor and tag in ANCHORS:
                out.anchor(anchor)
            if tag in BLOCK:
                out.newline()
                if tag == "pre":
                    out.open_code()
                    if html.startswith("\n", position):
                        position += 1  # a browser drops the newline right after <pre>
        else:
            if tag == "title":
                in_title = False
                continue
            if not open_count.get(tag):
                continue
            while stack:
                top = stack[-1]
                chrome -= popped(stack, open_count, chrome_at)
                if top == "pre":
                    out.close_code()
                out.close(top in MAIN, top in HEADINGS, top in BLOCK, unescape)
                if top == tag:
                    break
    title = _one_line(unescape("".join(title_parts))) or None
    return out.finish(title, unescape)
