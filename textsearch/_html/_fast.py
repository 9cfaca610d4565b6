"""HTML to sections with selectolax (lexbor, a C HTML5 parser): the ``html`` extra.

The page is parsed once in C; scripts, styles, page chrome and the ``<head>`` are removed in
C; one Python walk over what is left (text nodes and the elements that end a line, start a
section or mark the main content) builds the same output as ``_html_regex``. Inline
elements are descended into without any other work. The walk keeps its own stack, so no
nesting depth can exhaust Python's recursion limit.
"""

from __future__ import annotations

import re
from itertools import accumulate

from selectolax.lexbor import LexborHTMLParser, LexborNode

from textsearch._html import _common as common
from textsearch._html._common import Output, Sections
from textsearch._html._regex import html_sections as regex_sections

__all__ = ["html_sections"]

# One CSS query finds them all: strip_tags would walk the whole tree once per tag name.
_DROP = ",".join(
    [
        *sorted((common.SKIP | common.CHROME) - {"head"}),
        *(f".{name}" for name in common.NOT_TEXT_CLASSES),
        "[role=navigation]",
    ]
)


def _tag_ids() -> dict[str, int]:
    # lexbor numbers the standard tags with fixed small integers; comparing those is much
    # cheaper than building each node's tag name as a Python string.
    tree = LexborHTMLParser("<p>x</p>")
    found = {
        name: tree.create_node(name).tag_id
        for name in common.BLOCK | common.MAIN | common.ANCHORS | {"title", "code"}
    }
    paragraph = tree.css_first("p")
    assert paragraph is not None and paragraph.first_child is not None
    found["-text"] = paragraph.first_child.tag_id
    comment = LexborHTMLParser("<p><!-- c --></p>").css_first("p")
    assert comment is not None and comment.first_child is not None
    found["-comment"] = comment.first_child.tag_id
    return found


_IDS = _tag_ids()
_TEXT = _IDS["-text"]
_COMMENT = _IDS["-comment"]
_TITLE = _IDS["title"]
_BLOCK = frozenset(_IDS[n] for n in common.BLOCK)
_HEADINGS = frozenset(_IDS[n] for n in common.HEADINGS)
_MAIN = frozenset(_IDS[n] for n in common.MAIN)
_ANCHORS = frozenset(_IDS[n] for n in common.ANCHORS)
_LINE_BREAKS = frozenset(_IDS[n] for n in ("br", "hr"))
_PRE = _IDS["pre"]
_CODE = _IDS["code"]
# Elements the walk does something for; any other element is only descended into.
_STATEFUL = _BLOCK | _ANCHORS | {_TITLE}


def _title_node(tree: LexborHTMLParser) -> LexborNode | None:
    # The <title> is a child of <head> on nearly every page: looking there first is ~40x
    # cheaper than a CSS query, which sets up a selector engine per document.
    head = tree.head
    node = head.first_child if head is not None else None
    while node is not None:
        if node.tag_id == _TITLE:
            return node
        node = node.next
    found = tree.tags("title")
    return found[0] if found else None


def _anchor(node: LexborNode) -> str | None:
    attributes = node.attributes
    return attributes.get("id") or attributes.get("name") or None


# lexbor's handling of a block start tag looks through the open elements, as the HTML5
# algorithm describes: O(depth) per tag, so a page of 100,000 nested <div>s takes minutes.
# Pages with few tags are safe (8,000 tags nested: ~0.2 s); others have their nesting
# bounded first, and the deep ones go to the regex pass, which is linear.
_FEW_TAGS = 8_000
_MAX_WORK = 30_000_000  # tags x deepest nesting: ~0.15 s of lexbor at worst
# The start tags whose nesting measured quadratic in lexbor (8,000 deep: 0.11-0.21 s each;
# inline, table, list-item, heading and formatting tags stayed linear).
_NESTERS = (
    r"<(/?)(?:div|section|article|aside|blockquote|main|nav|header|footer|figure|figcaption"
    r"|ul|ol|dl|menu|dir|pre|listing|fieldset|details|summary|dialog|hgroup|search|center"
    r"|address|optgroup)[\s/>]"
)
_NESTING = re.compile(_NESTERS)
_NESTING_BYTES = re.compile(_NESTERS.encode())


def _too_deep(html: str | bytes) -> bool:
    tags = html.count(b"<") if isinstance(html, bytes) else html.count("<")
    if tags < _FEW_TAGS:
        return False
    # Lower-cased first: a case-sensitive scan is cheaper than an IGNORECASE one.
    if isinstance(html, bytes):
        slashes = _NESTING_BYTES.findall(html.lower())
    else:
        slashes = _NESTING.findall(html.lower())
    if not slashes:
        return False
    # The nesting depth, with stray end tags counted as if they could close anything, is at
    # most the highest running total minus the lowest one: an upper bound, computed in C.
    totals = list(accumulate([-1 if slash else 1 for slash in slashes]))
    deepest = max(totals) - min(0, min(totals))
    return tags * deepest > _MAX_WORK


def html_sections(html: str | bytes) -> Sections:
    """Return ``(title, [(heading, anchor, text), ...])`` for an HTML document."""
    if _too_deep(html):
        return regex_sections(html)
    if isinstance(html, bytes):
        codec, bom = common.sniff_encoding(html)
        if codec == "utf-8":
            html = html[bom:] if bom else html  # lexbor reads UTF-8 bytes as they are
        else:
            html = html[bom:].decode(codec, errors="replace")
    elif html.startswith("\ufeff"):
        html = html[1:]
    # scripting=True: <noscript> is one text node (dropped below), as a browser reads it.
    tree = LexborHTMLParser(html, scripting=True)
    title_node = _title_node(tree)
    title = (common.one_line(title_node.text()) or None) if title_node is not None else None
    for dropped in tree.css(_DROP):
        # Unlinks the subtree (memory goes with the document); an element inside one already
        # unlinked is simply unlinked from it, as strip_tags does.
        dropped.decompose()
    head = tree.head
    if head is not None:
        head.decompose()
    out = Output()  # the whole page and its main content, side by side
    # Elements entered and not yet left; an element is left when its children are done.
    stack: list[tuple[LexborNode, int]] = []
    root = tree.root
    node = root.first_child if root is not None else None
    while True:
        if node is None:
            if not stack:
                break
            parent, tag = stack.pop()
            node = parent.next
            if tag in _STATEFUL:
                if tag == _PRE:
                    out.close_code()
                out.close(tag in _MAIN, tag in _HEADINGS, tag in _BLOCK, None)
            continue
        tag = node.tag_id
        if tag == _TEXT:
            text = node.text_content or ""
            out.text(text)
            node = node.next
            continue
        if tag not in _STATEFUL:
            if tag == _CODE and out.code:
                out.split_code()
            # Inline markup, comments, unknown elements: only their text counts, but an id
            # inside a heading names the heading (<h2><span id="Usage">Usage</span></h2>).
            if out.heading is not None and tag != _COMMENT:
                inner = _anchor(node)
                if inner:
                    out.heading.inside = inner
            child = node.first_child
            if child is None:
                node = node.next
            else:
                stack.append((node, tag))
                node = child
            continue
        if tag == _TITLE:
            node = node.next
            continue
        if tag in _LINE_BREAKS:
            out.newline()
            node = node.next
            continue
        anchor = _anchor(node) if tag in _ANCHORS or tag in _HEADINGS else None
        if out.heading is not None and tag in _BLOCK:
            # A block inside a heading (<h2>Title<p>..., which HTML5 nests): the heading
            # ends here and the block is body text.
            out.end_heading(None)
        stack.append((node, tag))
        if tag in _MAIN:
            out.main += 1
        elif tag in _HEADINGS:
            out.open_heading(anchor)
            node = node.first_child
            continue
        if anchor and tag in _ANCHORS:
            out.anchor(anchor)
        if tag in _BLOCK:
            out.newline()
            if tag == _PRE:
                out.open_code()
        node = node.first_child
    return out.finish(title, None)
