"""What the markup readers make: sections of blocks, each block with its source line.

A reader (Markdown, MyST, reStructuredText) turns a file into sections; a section is its
heading, the heading's anchor, its first line and its blocks. A block is a paragraph, a
list, a table or a code block as plain text, with the line it starts on in the file, so a
passage's ``#L<n>`` link stays right whatever the markup took away. Code blocks are kept
exactly (``code=True``): the packer never re-indents or re-flows them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Block", "MarkupSection", "SectionWriter", "collector_paused", "strip_tags"]


@dataclass(slots=True)
class Block:
    """One block of a section: its first line in the file, its text, whether it is code."""

    line: int
    text: str
    code: bool = False


#: ``(heading, anchor, first line, blocks)``
MarkupSection = tuple["str | None", "str | None", int, list[Block]]


class SectionWriter:
    """What a reader writes into: blocks, gathered into sections at each heading.

    The Markdown and reStructuredText readers walk different trees into the same output
    through this one class: prose blocks may be joined (list items, field lists), code blocks
    never are, and empty text makes no block.
    """

    def __init__(self) -> None:
        self.title: str | None = None
        self.sections: list[MarkupSection] = []
        self.blocks: list[Block] = []
        self.heading: str | None = None
        self.anchor: str | None = None
        self.first = 1
        self.used: dict[str, int] = {}  # anchors given so far, to number repeats
        self.fresh = False  # the next block starts anew even where blocks are joined

    def add_block(self, line: int, text: str, *, code: bool = False, join: bool = False) -> None:
        """Add a block starting on ``line``; ``join``: onto the last prose block, if any."""
        if code:
            if text.strip():
                self.blocks.append(Block(line, text, True))
            return
        if not text.strip():
            return
        last = self.blocks[-1] if self.blocks else None
        if join and last is not None and not last.code and not self.fresh:
            last.text += "\n" + text
        else:
            self.blocks.append(Block(line, text))
        self.fresh = False

    def close_section(self) -> None:
        self.sections.append((self.heading, self.anchor, self.first, self.blocks))
        self.blocks = []

    def open_section(self, heading: str, anchor: str, first: int) -> None:
        """End the section so far; the next blocks are under ``heading`` (the first names
        the document unless something else did)."""
        self.close_section()
        self.heading, self.anchor, self.first = heading, anchor, first
        if self.title is None:
            self.title = heading


def strip_tags(html: str) -> str:
    """The text of an HTML fragment: tags and comments dropped, entities decoded.

    One left-to-right scan with ``str.find``: linear in the input whatever it holds (an
    unclosed ``<`` or ``<!--`` keeps the rest as text rather than searching again).
    """
    import html as html_module

    out: list[str] = []
    pos = 0
    size = len(html)
    while pos < size:
        start = html.find("<", pos)
        if start == -1:
            out.append(html[pos:])
            break
        out.append(html[pos:start])
        following = html[start + 1 : start + 2]
        if html.startswith("<!--", start):
            end = html.find("-->", start + 4)
            if end == -1:
                break  # an unclosed comment hides the rest, as a browser does
            pos = end + 3
            continue
        if not following or not (following.isalpha() or following in "/!?"):
            out.append("<")
            pos = start + 1
            continue
        end = html.find(">", start + 1)
        if end == -1:
            out.append(html[start:])
            break
        pos = end + 1
    return html_module.unescape("".join(out))


def github_slug(heading: str, used: dict[str, int]) -> str:
    """The anchor GitHub gives a heading's plain text (numbered when repeated)."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in "-_ ")
    slug = kept.replace(" ", "-")
    count = used.get(slug, 0)
    used[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def docutils_slug(heading: str, used: dict[str, int]) -> str:
    """The anchor docutils gives a title (numbered when repeated)."""
    out: list[str] = []
    for c in heading.lower():
        out.append(c if ("a" <= c <= "z" or "0" <= c <= "9") else "-")
    slug = "-".join(part for part in "".join(out).split("-") if part) or "section"
    count = used.get(slug, 0)
    used[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a parser builds one file's tree.

    What a parser builds lives until the file has been read, so collections meanwhile free
    nothing of it, but they walked the growing tree again and again: ~25% of a docutils
    parse, ~7% of a markdown-it one. Left as it was if something else turned it off.
    """
    import gc

    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
