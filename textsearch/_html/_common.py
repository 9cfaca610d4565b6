"""What both HTML converters share: tag classes, tidying, the choice of main content."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any

#: ``(title, [(heading, anchor, text), ...])``
Sections = tuple[str | None, list[tuple[str | None, str | None, str]]]

# Content that is never text for a reader.
SKIP = frozenset(
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
# Page chrome: never text for a reader either (menus, banners, search forms); an element
# with ``role="navigation"`` too (Sphinx's "related" bar and sidebar are <div>s).
CHROME = frozenset({"nav", "header", "footer", "aside", "form"})
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Tags that end a line of text (and a heading left open: <h2>Title<p>...).
BLOCK = frozenset(
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
    | HEADINGS
)
# Elements that are no text of the page although they hold characters, by class: the
# "¶" link after each heading (Sphinx, MkDocs: headerlink; Docusaurus: hash-link), the
# line numbers beside a code block (Pygments: linenos, linenodiv) and Sphinx's "[source]"
# link after a definition (viewcode-link).
NOT_TEXT_CLASSES = ("headerlink", "hash-link", "linenos", "linenodiv", "viewcode-link")
_PERMALINKS = frozenset({"#", "¶", "§", "🔗", "⚓", "&#182;", "&para;", "&sect;", "&#35;"})
# What a <pre> holds is kept as written (its indentation is the code's): between these two
# characters (private use: never text of a page; dropped from it) while the page is read.
CODE_OPEN, CODE_CLOSE = "\ue010", "\ue011"
# Where the main content is, when a page says so.
MAIN = frozenset({"main", "article"})
# Elements whose id (or name) can be the anchor of the heading that follows or holds them.
ANCHORS = frozenset({"a", "section", "div"})

# Runs of blanks that are not already a single space (most are: they are left alone).
_SPACES = re.compile(r"[\t\r\f\v\u00a0][ \t\r\f\v\u00a0]*| [ \t\r\f\v\u00a0]+")


def tidy(text: str) -> str:
    """Runs of blanks to one space, no blanks at line ends, at most one empty line in a row;
    code (between `CODE_OPEN` and `CODE_CLOSE`) as written, a block of its own."""
    if CODE_OPEN in text:
        return _tidy_with_code(text)
    return _tidy_prose(text)


def _tidy_with_code(text: str) -> str:
    first, *blocks = text.split(CODE_OPEN)
    parts = [_tidy_prose(first.replace(CODE_CLOSE, ""))]
    for piece in blocks:
        code, closed, prose = piece.partition(CODE_CLOSE)
        if not closed:
            code, prose = "", piece  # a block never closed (a section ended in it): prose
        lines = [line.rstrip() for line in code.split("\n")]
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        parts.append("\n".join(lines))
        parts.append(_tidy_prose(prose.replace(CODE_CLOSE, "")))
    return "\n\n".join(part for part in parts if part)


def _tidy_prose(text: str) -> str:
    # One substitution over the whole text, not one per line: most of the cost was calls.
    text = "\n".join([line.strip() for line in _SPACES.sub(" ", text).split("\n")])
    while "\n\n\n" in text:  # str.replace runs in C: faster than a regex for this
        text = text.replace("\n\n\n", "\n\n")
    return text.strip()


def one_line(text: str) -> str:
    """A title or heading: all whitespace (newlines too) collapsed to single spaces."""
    return " ".join(text.split())


class Heading:
    """A heading being read: its text so far, and the anchors that may name it."""

    __slots__ = ("before", "inside", "own", "parts")

    def __init__(self, own: str | None, before: str | None) -> None:
        self.parts: list[str] = []
        self.own = own  # its id
        self.inside: str | None = None  # the last <a id|name> inside it
        self.before = before  # an anchor right before it, with no text in between

    def section(self, decode: Callable[[str], str] | None) -> list[Any]:
        """A new ``[heading, anchor, parts]`` section headed by it, less a permalink's glyph
        after its text (Node.js' ``#`` link: the heading's last piece of text, on its own)."""
        parts = self.parts
        while len(parts) > 1 and not parts[-1].strip():
            parts.pop()
        if len(parts) > 1 and parts[-1].strip() in _PERMALINKS:
            parts.pop()
        text = "".join(parts)
        heading = one_line(decode(text) if decode is not None else text)
        return [heading or None, self.own or self.inside or self.before, []]


class Output:
    """A page's text built twice side by side: the whole page, and only its main content
    (what is inside ``<main>`` or ``<article>``); `finish` chooses. A section is
    ``[heading, anchor, parts]``. Both converters write through this one class."""

    __slots__ = (
        "code", "heading", "inside", "last_anchor", "main", "main_chars", "main_parts",
        "whole", "whole_chars", "whole_parts",
    )  # fmt: skip

    def __init__(self) -> None:
        self.whole: list[list[Any]] = [[None, None, []]]
        self.inside: list[list[Any]] = [[None, None, []]]
        self.whole_parts: list[str] = self.whole[-1][2]
        self.main_parts: list[str] = self.inside[-1][2]
        self.whole_chars = self.main_chars = 0
        self.main = 0  # how many <main>/<article> elements are open
        self.heading: Heading | None = None  # the heading being read
        self.last_anchor: str | None = None  # an anchor with no text after it yet
        self.code = 0  # how many <pre> elements are open

    def text(self, text: str) -> None:
        if CODE_OPEN in text or CODE_CLOSE in text:
            text = text.replace(CODE_OPEN, "").replace(CODE_CLOSE, "")
        heading = self.heading
        if heading is not None:
            heading.parts.append(text)
        else:
            # Characters of text, not of the markup's indentation, decide the choice.
            size = len(text.strip())
            self.whole_parts.append(text)
            self.whole_chars += size
            if self.main:
                self.main_parts.append(text)
                self.main_chars += size
        if self.last_anchor is not None and not text.isspace():
            self.last_anchor = None

    def newline(self) -> None:
        self.whole_parts.append("\n")
        if self.main:
            self.main_parts.append("\n")

    def open_code(self) -> None:
        """A ``<pre>`` starts: its text is kept as written, up to its end."""
        self.code += 1
        if self.code == 1 and self.heading is None:
            self._mark(CODE_OPEN)

    def split_code(self) -> None:
        """A ``<code>`` inside a ``<pre>`` starts: a block of its own (Node.js' pages hold
        the ESM and the CommonJS variant of an example as two ``<code>`` in one ``<pre>``,
        with nothing between them; an empty block before the first one goes)."""
        if self.code == 1 and self.heading is None:
            self._mark(CODE_CLOSE)
            self._mark(CODE_OPEN)

    def close_code(self) -> None:
        if self.code == 0:
            return
        self.code -= 1
        if self.code == 0 and self.heading is None:
            self._mark(CODE_CLOSE)

    def _mark(self, mark: str) -> None:
        self.whole_parts.append(mark)
        if self.main:
            self.main_parts.append(mark)

    def open_heading(self, anchor: str | None) -> None:
        self.heading = Heading(anchor, self.last_anchor)

    def end_heading(self, decode: Callable[[str], str] | None) -> None:
        """Start the section that the heading being read (now whole) heads."""
        heading, self.heading = self.heading, None
        if heading is None:
            return
        section = heading.section(decode)
        self.whole.append(section)
        self.whole_parts = section[2]
        if self.main:
            self.inside.append([section[0], section[1], []])
            self.main_parts = self.inside[-1][2]

    def close(
        self, main: bool, heading: bool, block: bool, decode: Callable[[str], str] | None
    ) -> None:
        """An element ends: a ``<main>``/``<article>``, a heading or a line-ending element."""
        if main:
            self.main -= 1
        elif heading and self.heading is not None:
            self.end_heading(decode)
            self.last_anchor = None
        if block:
            self.newline()

    def anchor(self, anchor: str) -> None:
        """An element with an id: it names the heading being read, or the next one."""
        self.last_anchor = anchor
        if self.heading is not None:
            self.heading.inside = anchor  # the last one: HTML5 may clone an earlier <a> in

    def finish(self, title: str | None, decode: Callable[[str], str] | None) -> Sections:
        return assemble(title, self.whole, self.inside, self.whole_chars, self.main_chars, decode)


def assemble(
    title: str | None,
    whole: list[list[Any]],
    inside: list[list[Any]],
    whole_chars: int,
    main_chars: int,
    decode: Callable[[str], str] | None,
) -> Sections:
    """Choose the whole page or its main content, tidy each section, fall back on a title.

    ``whole`` and ``inside`` are lists of ``[heading, anchor, parts]``; the main content is
    chosen when it holds at least a quarter of the page's text (a page whose ``<main>`` is
    a cookie banner keeps its body).
    """
    chosen = inside if main_chars > 0 and main_chars >= 0.25 * whole_chars else whole
    if title is None:
        title = next((h for h, _, _ in chosen if h), None)
    if decode is None:
        return title, [(h, a, tidy("".join(parts))) for h, a, parts in chosen]
    return title, [(h, a, tidy(decode("".join(parts)))) for h, a, parts in chosen]


# What the HTML standard reads for a few labels: "latin-1" pages are windows-1252 in every
# browser, and a page that says UTF-16 in a <meta> cannot be UTF-16 (the tag was readable).
_LABELS = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "utf-16": "utf-8",
    "utf-16le": "utf-8",
    "utf-16be": "utf-8",
}
_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([-\w.:]+)""", re.IGNORECASE)


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """``(codec, length of the byte-order mark)`` of an HTML file: by its BOM, else its
    ``<meta>`` charset (in the first 1,024 bytes, where browsers look), else UTF-8."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8", 3
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", 0  # the codec reads the BOM itself
    match = _META_CHARSET.search(data, 0, 1024)
    if match is None:
        return "utf-8", 0
    label = match.group(1).decode("ascii", errors="replace").lower()
    label = _LABELS.get(label, label)
    try:
        info = codecs.lookup(label)
    except LookupError:
        return "utf-8", 0
    # base64, rot13 and the like are codecs too, but cannot read a page.
    return (info.name if getattr(info, "_is_text_encoding", True) else "utf-8"), 0


def decode_html(data: bytes) -> str:
    """The text of an HTML file (see `sniff_encoding`); bad bytes become U+FFFD."""
    codec, bom = sniff_encoding(data)
    return data[bom:].decode(codec, errors="replace")
