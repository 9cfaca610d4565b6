"""Split documents into passages, by format: what ``index_path`` and ``chunk=True`` run.

Kept apart from ``_local_passages`` (what searching needs) so that opening an index and
searching it never compiles these patterns nor loads the HTML converter.
Everything here is linear in the size of its input, so a many-megabyte log file costs
milliseconds, not seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from textsearch.documents._blocks import Block, MarkupSection, collector_paused
from textsearch.documents._passages import (
    DEFAULT_PASSAGE_CHARS,
    INDENTED_ITEM,
    Passage,
    _tidy,
    without_controls,
)

__all__ = ["FORMATS", "format_of", "split_document", "split_text"]

_SPLIT_MIN = 200  # a cut never leaves a piece shorter than this when it can be avoided


# -- sections per format -------------------------------------------------------------------

# A section: (heading, anchor, first line number, body lines joined).
_Section = tuple[str | None, str | None, int, str]


def _plain_sections(raw: str) -> tuple[str | None, list[_Section]]:
    first = next((line.strip() for line in raw.splitlines() if line.strip()), "")
    return (first if 0 < len(first) <= 100 else None), [(None, None, 1, raw)]


def _html_sections(raw: str | bytes) -> tuple[str | None, list[_Section]]:
    from textsearch._html import html_sections  # loads a parser: only when HTML is read

    title, parts = html_sections(raw)
    return title, [(heading, anchor, 0, text) for heading, anchor, text in parts]


# -- packing sections into bounded passages ------------------------------------------------

_BLOCK_BREAK = re.compile(r"\n(?:[ \t]*\n)+")  # blank lines: where paragraphs end
_SENTENCE_END = re.compile(r"[.!?。！？]\s")
_BLANKS = re.compile(r"\s*")


def _blocks(body: str) -> Iterator[tuple[int, str]]:
    """``(offset, text)`` of each paragraph: the pieces between runs of blank lines."""
    # Splitting at the breaks is cheaper than matching the paragraphs themselves with a
    # negative lookahead at every character.
    start = 0
    for found in _BLOCK_BREAK.finditer(body):
        yield start, body[start : found.start()]
        start = found.end()
    yield start, body[start:]


def _cut(text: str, limit: int) -> list[str]:
    """Cut one over-long paragraph at sentence ends, else at spaces, else anywhere.

    The text is walked by offsets, never re-sliced: copying what is left after each piece
    made a paragraph of megabytes cost time in the square of its length.
    """
    pieces: list[str] = []
    start, end = 0, len(text)
    while end - start > limit:
        stop = start + limit
        cut = -1
        for match in _SENTENCE_END.finditer(text, start + _SPLIT_MIN, stop):
            cut = match.end()
        if cut == -1:
            cut = text.rfind(" ", start + _SPLIT_MIN, stop) + 1
        if cut <= 0:
            cut = stop
        pieces.append(text[start:cut].rstrip())
        start = _resume(text, cut)
    rest = text[start:].rstrip()
    if rest:
        pieces.append(rest)
    return pieces


def _resume(text: str, cut: int) -> int:
    """Where the piece after a cut starts: past the blanks, but at the start of its line
    when that line is an indented list item (the item keeps its depth, as `_tidy` keeps it)."""
    start = _BLANKS.match(text, cut).end()  # type: ignore[union-attr]  # \s* always matches
    line = text.rfind("\n", cut - 1, start) + 1
    return line if line and INDENTED_ITEM.match(text, line) else start


def _passage(heading: str | None, anchor: str | None, line: int, pieces: list[str]) -> Passage:
    """One passage of pieces; no C0 control character but newlines and tabs in its text."""
    name = without_controls(heading) if heading else heading
    return Passage(name, anchor, line, without_controls("\n\n".join(pieces)))


def _pack(sections: list[_Section], limit: int, *, tidy: bool = True) -> list[Passage]:
    """Passages of at most ``limit`` characters, paragraphs kept whole when they fit.

    ``tidy=False`` for text that is tidy already (the HTML converter's: no blanks at line
    ends, no blank-line runs), whose paragraphs need no second pass.
    """
    return [
        _passage(heading, anchor, start, group)
        for heading, anchor, line, body in sections
        if body.strip()
        for start, group in group_pieces(_body_pieces(body, line, limit, tidy), limit, 2)
    ]


def _body_pieces(body: str, line: int, limit: int, tidy: bool) -> Iterator[tuple[int, str]]:
    """Each paragraph of a section's body (cut when over ``limit``) and the line it starts."""
    offset, at_line = 0, line
    for block_start, raw_block in _blocks(body):
        block = _tidy(raw_block) if tidy else raw_block
        if not block:
            continue
        if line:
            begins = block_start + len(raw_block) - len(raw_block.lstrip())
            at_line += body.count("\n", offset, begins)
            offset = begins
        for piece in [block] if len(block) <= limit else _cut(block, limit):
            yield at_line, piece


def group_pieces(
    pieces: Iterable[tuple[int, str]], limit: int, gap: int
) -> Iterator[tuple[int, list[str]]]:
    """Consecutive pieces gathered greedily into groups of at most ``limit`` characters.

    ``gap`` characters are counted after each piece (the separator they are joined by);
    each group comes with the position (a line, a row) of its first piece. A piece longer
    than ``limit`` makes a group of its own.
    """
    current: list[str] = []
    size = 0
    first = 0
    for position, piece in pieces:
        if current and size + len(piece) + gap > limit:
            yield first, current
            current, size = [], 0
        if not current:
            first = position
        current.append(piece)
        size += len(piece) + gap
    if current:
        yield first, current


# -- packing blocks (what the markup readers make) into passages -------------------------------


def _cut_code(text: str, limit: int) -> list[str]:
    """Cut an over-long code block between lines, each line kept exactly."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.split("\n"):
        while len(line) > limit:  # one line longer than a passage: cut where it must be
            if current:
                pieces.append("\n".join(current))
                current, size = [], 0
            pieces.append(line[:limit])
            line = line[limit:]
        if current and size + len(line) + 1 > limit:
            pieces.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current and any(part.strip() for part in current):
        pieces.append("\n".join(current))
    return pieces


def _pack_blocks(sections: list[MarkupSection], limit: int) -> list[Passage]:
    """Passages of at most ``limit`` characters; prose tidied, code blocks kept exactly."""
    return [
        _passage(heading, anchor, start, group)
        for heading, anchor, line, blocks in sections
        for start, group in group_pieces(_block_pieces(blocks, line, limit), limit, 2)
    ]


def _block_pieces(blocks: Iterable[Block], line: int, limit: int) -> Iterator[tuple[int, str]]:
    """Each block's text (cut when over ``limit``) and the line it starts on."""
    for block in blocks:
        if block.code:
            text = block.text.strip("\n")
            pieces = [text] if len(text) <= limit else _cut_code(text, limit)
        else:
            text = _tidy(block.text)
            if not text:
                continue
            pieces = [text] if len(text) <= limit else _cut(text, limit)
        for piece in pieces:
            yield block.line or line, piece


def _string_blocks(sections: list[_Section]) -> list[MarkupSection]:
    """Blocks of plain-text sections: paragraphs between blank lines, lines as written."""
    result: list[MarkupSection] = []
    for heading, anchor, first, body in sections:
        blocks: list[Block] = []
        paragraph: list[str] = []
        paragraph_line = first
        for number, text in enumerate(body.split("\n"), start=first):
            if not text.strip():
                if paragraph:
                    blocks.append(Block(paragraph_line, "\n".join(paragraph)))
                    paragraph = []
            else:
                if not paragraph:
                    paragraph_line = number
                paragraph.append(text)
        if paragraph:
            blocks.append(Block(paragraph_line, "\n".join(paragraph)))
        result.append((heading, anchor, first, blocks))
    return result


# -- formats ----------------------------------------------------------------------------------

#: The formats ``index_path(..., formats=...)`` can force for a file suffix.
FORMATS = ("markdown", "myst", "mdx", "rst", "html", "text")
_FORMAT_OF_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".myst": "markdown",
    ".mdx": "mdx",
    ".qmd": "markdown",
    ".rmd": "markdown",
    ".rst": "rst",
    ".rest": "rst",
    ".html": "html",
    ".htm": "html",
}


def readers() -> str:
    """Which readers make the text of Markdown and reStructuredText files (part of the
    index's text mark: a reader change reads the files again)."""
    return "markdown-it+docutils"


def _markdown(raw: str, *, mdx: bool = False) -> tuple[str | None, list[MarkupSection]]:
    from textsearch.documents import _markdown

    try:
        return _markdown.markdown_sections(raw, _eval_rst, mdx=mdx)
    except RecursionError:
        # Nesting deeper than the parsers take (a crafted file): its words, as plain text.
        return _plain_blocks(raw)


def _eval_rst(raw: str, offset: int) -> list[Block]:
    # The reStructuredText reader is imported with the first MyST ``{eval-rst}`` body, so a
    # folder of plain Markdown never loads it.
    from textsearch.documents import _rst

    return _rst.rst_blocks(raw, offset)


def _rst(raw: str) -> tuple[str | None, list[MarkupSection]]:
    from textsearch.documents import _rst

    try:
        return _rst.rst_sections(raw)
    except RecursionError:
        return _plain_blocks(raw)


def _plain_blocks(raw: str) -> tuple[str | None, list[MarkupSection]]:
    title, sections = _plain_sections(raw)
    return title, _string_blocks(sections)


def format_of(suffix: str, text: str | None, formats: Mapping[str, str] | None = None) -> str:
    """The format a file is read as: forced by ``formats``, else by suffix and content."""
    suffix = suffix.lower()
    if formats and suffix in formats:
        return "markdown" if formats[suffix] == "myst" else formats[suffix]
    kind = _FORMAT_OF_SUFFIX.get(suffix, "text")
    if kind == "text" and suffix == ".txt" and text is not None:
        from textsearch.documents._rst import looks_like_rst

        if looks_like_rst(text):
            return "rst"
    return kind


_INPUT_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f]")  # C0 but \t \n \v \f \r


def split_document(
    raw: str | bytes,
    suffix: str,
    *,
    limit: int = DEFAULT_PASSAGE_CHARS,
    formats: Mapping[str, str] | None = None,
) -> tuple[str | None, list[Passage]]:
    """Return ``(title, passages)`` of a file's text, by the format its suffix names.

    A file's bytes are decoded here: UTF-8 (a BOM ignored, bad bytes replaced), except
    HTML, which the HTML converter decodes as a browser would (BOM, ``<meta charset>``).
    A ``.txt`` file that is reStructuredText (title adornments, directives) is read as
    such; ``formats`` (suffix to ``"markdown"``, ``"myst"``, ``"mdx"``, ``"rst"``, ``"html"``
    or ``"text"``) forces a reading.
    """
    kind = format_of(suffix, None, formats)
    if kind == "html":
        title, sections = _html_sections(raw)
        passages = _pack(sections, limit, tidy=False)
        return title, passages or [Passage(None, None, 1, "")]
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8-sig", errors="replace")
    elif raw.startswith("\ufeff"):
        raw = raw[1:]
    if _INPUT_CONTROLS.search(raw):
        # No reader makes text of them, and docutils takes a NUL for its escape mark.
        raw = _INPUT_CONTROLS.sub("", raw)
    if kind == "text":
        kind = format_of(suffix, raw, formats)
    if kind == "markdown" or kind == "mdx":
        with collector_paused():
            title, blocks = _markdown(raw, mdx=kind == "mdx")
    elif kind == "rst":
        with collector_paused():
            title, blocks = _rst(raw)
    else:
        title, blocks = _plain_blocks(raw)
    passages = _pack_blocks(blocks, limit)
    return title, passages or [Passage(None, None, 1, "")]


def split_text(text: str, *, limit: int = DEFAULT_PASSAGE_CHARS) -> list[Passage]:
    """Split a document given to ``add_documents(..., chunk=True)``: Markdown headings, then
    blocks (plain text is Markdown without headings), as markdown-it finds them. The text is
    kept as given (its markup too); fenced code blocks stay whole and exact."""
    from textsearch.documents._markdown import source_sections

    with collector_paused():
        sections = source_sections(text)
    return _pack_blocks(sections, limit) or [Passage(None, None, 1, "")]
