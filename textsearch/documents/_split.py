"""Split documents into passages, by format: what ``index_path`` and ``chunk=True`` run.

Kept apart from ``_local_passages`` (what searching needs) so that opening an index and
searching it never compiles these patterns nor loads the HTML converter.
Everything here is linear in the size of its input, so a many-megabyte log file costs
milliseconds, not seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from textsearch.documents._blocks import Block, MarkupSection, collector_paused
from textsearch.documents._markdown import dropped_directive, role_text
from textsearch.documents._passages import DEFAULT_PASSAGE_CHARS, Passage, _tidy

__all__ = ["FORMATS", "format_of", "split_document", "split_text"]

_SPLIT_MIN = 200  # a cut never leaves a piece shorter than this when it can be avoided


# -- sections per format -------------------------------------------------------------------

_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
# A MyST directive fence (```{toctree}) and a MyST target line ((name)=).
_DIRECTIVE_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)`*\s*\{([\w:.-]{1,60})\}")
_MYST_TARGET = re.compile(r"^\s{0,3}\([^()\s]{1,200}\)=\s*$")
_RST_UNDER = re.compile(r"([=\-~^\"'`#*+_:.])\1{2,}\s*")
_SLUG_DROP = re.compile(r"[^\w\- ]")
_INLINE_MD = re.compile(r"[*_`]+|\[([^\]\n]{0,300})\]\([^)\n]{0,500}\)")
# For a heading's name: emphasis marks go, but an underscore inside a word stays (``equal_to``
# is a name, not emphasis), and code spans keep their text as written (``__init__``).
_HEADING_MD = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|\[([^\]\n]{0,300})\]\([^)\n]{0,500}\)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _heading_name(found: str) -> str:
    found = found[:500]  # a name, not a paragraph: also bounds the code-span search
    parts: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(found):
        parts.append(_HEADING_MD.sub(r"\1", found[last : match.start()]))
        parts.append(match.group(2).strip())
        last = match.end()
    parts.append(_HEADING_MD.sub(r"\1", found[last:]).replace("`", ""))
    return "".join(parts).strip()


def _github_slug(heading: str, used: dict[str, int]) -> str:
    slug = _SLUG_DROP.sub("", _INLINE_MD.sub(r"\1", heading).strip().lower()).replace(" ", "-")
    count = used.get(slug, 0)
    used[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def _docutils_slug(heading: str, used: dict[str, int]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-") or "section"
    count = used.get(slug, 0)
    used[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


# Markdown syntax a model should not read, removed line by line (the line count is kept, so
# that passages' #L<n> links stay right). Code inside fences is left as written.
_MD_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_MD_BREAK = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")  # a thematic break
_MD_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S+.*$")
_MD_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
# Bounded quantifiers keep every pattern linear: from any position a pattern looks at most a
# few hundred characters ahead (unbounded ones rescanned the rest of the line from every
# opener: 100 KB of "[" lines took 10.7 s). Only the fallback reader uses these.
_MD_INLINE = (
    (re.compile(r"!\[([^\]\n]{0,300})\]\([^)\n]{0,500}\)"), r"\1"),  # image: its alt text
    (re.compile(r"\[([^\]\n]{1,300})\]\([^)\n]{0,500}\)"), r"\1"),  # link: its text
    (re.compile(r"\[([^\]\n]{1,300})\]\[[^\]\n]{0,300}\]"), r"\1"),  # reference link
    (re.compile(r"<(https?://[^>\s]{1,2000})>"), r"\1"),  # autolink
    (re.compile(r"<!--.{0,1000}?-->"), ""),
    (re.compile(r"(\*\*|__)(?=\S)([^\n]{1,300}?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?=[^\s*])([^\n]{1,300}?)(?<=[^\s*])\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?=[^\s_])([^\n]{1,300}?)(?<=[^\s_])_(?![\w_])"), r"\1"),
    (re.compile(r"~~(?=\S)([^\n]{1,300}?)(?<=\S)~~"), r"\1"),
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])"), r"\1"),  # backslash escapes
)


_BACKTICKS = re.compile(r"`+")
# Strong emphasis whose closer is on the next line (the line patterns pair within a line).
# No backtick inside: markers in code are literal. Bounded, as the line patterns are.
_STRONG_ACROSS = re.compile(
    r"(?<![\w*_])(\*\*|__)(?=[^\s*_])([^\n`]{0,300}\n[^\n`]{0,300}?)(?<=[^\s*_])\1(?![\w*_])"
)
# A MyST role right before a code span: {py:class}`X`.
_ROLE_BEFORE = re.compile(r"\{[\w:.+-]{1,40}\}\Z")
# A "*" or "+" list marker is shown as "-", as the markdown-it reader shows every bullet.
_MD_BULLET = re.compile(r"^(\s*)[*+](?=[ \t])")
# Lines that start a block of their own: a code span never reaches into or out of them.
_MD_BLOCK_START = re.compile(r"^\s{0,3}(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|\||>)")


def _unmark_code_spans(text: str) -> str:
    """``text`` (one paragraph or table row) without the backticks of its code spans.

    CommonMark's pairing: a run of backticks opens a span that the next run of the same
    length closes, within a line or across line ends; runs inside a span are literal, and
    a run with no closer stays as written. One space inside each end goes too when both ends
    have one. A MyST role before a span (``{class}`~a.B` ``) reads as the markdown-it reader
    reads it ("B"). Each length keeps a pointer into its list of runs, and pointers only
    move forward: linear whatever the input.
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    next_of: dict[int, int] = {}  # length -> position in by_length[length]
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in order
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        at = next_of.get(end - start, 0)
        while at < len(same) and same[at] <= index:
            at += 1
        next_of[end - start] = at
        if at == len(same):  # no closer: a literal run
            index += 1
            continue
        closer = same[at]
        close_start, close_end = runs[closer]
        content = text[end:close_start]
        role = _ROLE_BEFORE.search(text, max(0, start - 48), start)
        if role is not None and "\n" not in content:
            edits.append((role.start(), close_end, role_text(content)))
        else:
            padded = len(content) >= 3 and content[0] == content[-1] == " " and content.strip()
            edits += ((start, end + bool(padded), ""), (close_start - bool(padded), close_end, ""))
        index = closer + 1
    if not edits:
        return text
    pieces: list[str] = []
    last = 0
    for start, end, replacement in edits:
        pieces += (text[last:start], replacement)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _plain_inline(line: str) -> str:
    for pattern, replacement in _MD_INLINE:
        line = pattern.sub(replacement, line)
    return line


def _plain_markdown(body: str) -> str:
    """A Markdown section's text as plain text, one output line per input line.

    Changing what this makes: bump ``local.MARKDOWN_TEXT_VERSION`` (indexes then re-read
    their Markdown files once).

    Tables become their cells separated by semicolons, a row ending with a full stop (the
    rule row goes); links and images
    their text; emphasis, inline code marks, quote marks, fences and reference definitions go.
    """
    out: list[str] = []
    in_fence = False
    lines = body.split("\n")
    if "`" in body or "**" in body or "__" in body:
        lines = _unmark_paragraph_spans(lines)
    dropping = False  # inside a directive with no text for a reader (toctree, contents)
    for line in lines:
        if _FENCE.match(line):
            if not in_fence:
                directive = _DIRECTIVE_FENCE.match(line)
                dropping = directive is not None and dropped_directive(directive.group(1))
            in_fence = not in_fence
            out.append("")
            continue
        if in_fence:
            out.append("" if dropping else line)
            continue
        if _MYST_TARGET.match(line):
            out.append("")
            continue
        if ("|" in line and _MD_TABLE_RULE.match(line)) or _MD_BREAK.match(line):
            out.append("")
            continue
        if _MD_REF_DEF.match(line):
            out.append("")
            continue
        line = _MD_BULLET.sub(r"\1-", _MD_QUOTE.sub("", line))
        stripped = line.strip()
        if stripped.startswith("|") and stripped.count("|") >= 2:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", stripped.strip("|"))]
            line = "; ".join(_plain_inline(c) for c in cells if c)
            if line and line[-1] not in ".!?:;":
                line += "."  # rows stay apart when a snippet joins the lines
        else:
            line = _plain_inline(line)
        out.append(line)
    return "\n".join(out)


def _unmark_paragraph_spans(lines: list[str]) -> list[str]:
    """The lines, with the code spans of each paragraph and table row unmarked (a span may
    cross a line end) and strong emphasis closed on a later line of the paragraph unmarked;
    fenced code is left as written."""
    result = list(lines)
    in_fence = False
    first = -1  # the current paragraph's first line; -1: none
    for number, line in enumerate([*lines, ""]):
        fence = number < len(lines) and bool(_FENCE.match(line))
        ends = fence or in_fence or not line.strip() or bool(_MD_BLOCK_START.match(line))
        if ends and first >= 0:
            joined = "\n".join(result[first:number])
            if number - first > 1 and ("**" in joined or "__" in joined):
                joined = _STRONG_ACROSS.sub(r"\2", joined)
            if joined.count("`") >= 2:
                joined = _unmark_code_spans(joined)
            result[first:number] = joined.split("\n")
        if fence:
            in_fence = not in_fence
        if ends:
            # a list item or quote line begins the next paragraph; a blank or fence line ends
            opens = not (fence or in_fence or not line.strip())
            first = number if opens else -1
        elif first < 0:
            first = number
    return result


def _atx_heading(line: str) -> str | None:
    """The text of an ATX heading line (``## Title ##``), else ``None``.

    String methods, not a regular expression: the pattern this replaces backtracked
    catastrophically on a long run of spaces (``"# a" + 3000 spaces + "x"`` took ~20 s).
    """
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    rest = stripped.lstrip("#")
    if len(stripped) - len(rest) > 6 or not rest[:1].isspace():
        return None
    text = rest.strip()
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1].isspace()):
        text = closed.rstrip()  # a closing run of '#' after a space is not part of the title
    return text or None


# A section: (heading, anchor, first line number, body lines joined).
_Section = tuple[str | None, str | None, int, str]


def _markdown_sections(raw: str) -> tuple[str | None, list[_Section]]:
    lines = raw.splitlines()
    title: str | None = None
    start = 0
    if raw.startswith("---"):
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                match = re.search(r"^title:\s*(.+?)\s*$", "\n".join(lines[1:i]), re.MULTILINE)
                if match:
                    title = match.group(1).strip("'\"") or None
                start = i + 1
                break
    sections: list[_Section] = []
    used: dict[str, int] = {}
    heading: str | None = None
    anchor: str | None = None
    first = start + 1
    body: list[str] = []
    in_fence = False
    i = start
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
        found: str | None = None
        skip = 1
        if not in_fence:
            atx = _atx_heading(line)
            if atx:
                found = atx
            elif (
                line.strip()
                and i + 1 < len(lines)
                and _SETEXT.match(lines[i + 1])
                and (not body or not body[-1].strip())
            ):
                found, skip = line.strip(), 2
        if found is not None:
            sections.append((heading, anchor, first, "\n".join(body)))
            # `first` is the line number of the section's first body line.
            anchor = _github_slug(found, used)
            heading = _heading_name(found) or found
            first, body = i + 1 + skip, []
            if title is None:
                title = heading
            i += skip
            continue
        body.append(line)
        i += 1
    sections.append((heading, anchor, first, "\n".join(body)))
    return title, sections


def _rst_sections(raw: str) -> tuple[str | None, list[_Section]]:
    lines = raw.splitlines()
    title: str | None = None
    sections: list[_Section] = []
    used: dict[str, int] = {}
    heading: str | None = None
    anchor: str | None = None
    first = 1
    body: list[str] = []
    i = 0
    while i < len(lines):
        text = lines[i].strip()
        under = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if (
            text
            and len(under) >= len(text)
            and _RST_UNDER.fullmatch(under)
            and not _RST_UNDER.fullmatch(text)
            and not lines[i].startswith((" ", "\t"))
        ):
            # An overline, if any, is already in `body`: take it back out.
            if body and _RST_UNDER.fullmatch(body[-1].strip()):
                body.pop()
            sections.append((heading, anchor, first, "\n".join(body)))
            heading, anchor, first, body = text, _docutils_slug(text, used), i + 3, []
            title = title or text
            i += 2
            continue
        body.append(lines[i])
        i += 1
    sections.append((heading, anchor, first, "\n".join(body)))
    return title, sections


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


def _blocks(body: str) -> Iterator[tuple[int, str]]:
    """``(offset, text)`` of each paragraph: the pieces between runs of blank lines."""
    # Splitting at the breaks is ~5x faster than matching the paragraphs themselves with a
    # negative lookahead at every character.
    start = 0
    for found in _BLOCK_BREAK.finditer(body):
        yield start, body[start : found.start()]
        start = found.end()
    yield start, body[start:]


def _cut(text: str, limit: int) -> list[str]:
    """Cut one over-long paragraph at sentence ends, else at spaces, else anywhere."""
    pieces: list[str] = []
    while len(text) > limit:
        window = text[:limit]
        cut = -1
        for match in _SENTENCE_END.finditer(window, _SPLIT_MIN):
            cut = match.end()
        if cut == -1:
            cut = window.rfind(" ", _SPLIT_MIN) + 1
        if cut <= 0:
            cut = limit
        pieces.append(text[:cut].strip())
        text = text[cut:].lstrip()
    if text.strip():
        pieces.append(text.strip())
    return pieces


def _pack(sections: list[_Section], limit: int, *, tidy: bool = True) -> list[Passage]:
    """Passages of at most ``limit`` characters, paragraphs kept whole when they fit.

    ``tidy=False`` for text that is tidy already (the HTML converter's: no blanks at line
    ends, no blank-line runs), whose paragraphs need no second pass.
    """
    passages: list[Passage] = []
    for heading, anchor, line, body in sections:
        if not body.strip():
            continue
        current: list[str] = []
        size = 0
        start_line = line
        offset, at_line = 0, line
        for block_start, raw_block in _blocks(body):
            block = _tidy(raw_block) if tidy else raw_block
            if not block:
                continue
            if line:
                begins = block_start + len(raw_block) - len(raw_block.lstrip())
                at_line += body.count("\n", offset, begins)
                offset = begins
            if len(block) <= limit:
                pieces = [block]
            else:
                pieces = _cut(block, limit)
            for piece in pieces:
                if current and size + len(piece) + 2 > limit:
                    passages.append(Passage(heading, anchor, start_line, "\n\n".join(current)))
                    current, size = [], 0
                if not current:
                    start_line = at_line
                current.append(piece)
                size += len(piece) + 2
        if current:
            passages.append(Passage(heading, anchor, start_line, "\n\n".join(current)))
    return passages


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
    passages: list[Passage] = []
    for heading, anchor, line, blocks in sections:
        current: list[str] = []
        size = 0
        start_line = line
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
                if current and size + len(piece) + 2 > limit:
                    passages.append(Passage(heading, anchor, start_line, "\n\n".join(current)))
                    current, size = [], 0
                if not current:
                    start_line = block.line or line
                current.append(piece)
                size += len(piece) + 2
        if current:
            passages.append(Passage(heading, anchor, start_line, "\n\n".join(current)))
    return passages


def _string_blocks(sections: list[_Section], *, fences: bool) -> list[MarkupSection]:
    """Blocks of sections read line by line: paragraphs between blank lines, and (when
    ``fences``) fenced code blocks whole and exact, blank lines and indentation included."""
    result: list[MarkupSection] = []
    for heading, anchor, first, body in sections:
        blocks: list[Block] = []
        lines = body.split("\n")
        paragraph: list[str] = []
        paragraph_line = first
        code: list[str] | None = None
        code_line = first
        for number, text in enumerate(lines, start=first):
            if fences and _FENCE.match(text):
                if code is None:
                    if paragraph:
                        blocks.append(Block(paragraph_line, "\n".join(paragraph)))
                        paragraph = []
                    code, code_line = [], number + 1
                else:
                    blocks.append(Block(code_line, "\n".join(code), True))
                    code = None
                continue
            if code is not None:
                code.append(text)
            elif not text.strip():
                if paragraph:
                    blocks.append(Block(paragraph_line, "\n".join(paragraph)))
                    paragraph = []
            else:
                if not paragraph:
                    paragraph_line = number
                paragraph.append(text)
        if code is not None:
            blocks.append(Block(code_line, "\n".join(code), True))
        if paragraph:
            blocks.append(Block(paragraph_line, "\n".join(paragraph)))
        result.append((heading, anchor, first, blocks))
    return result


# -- formats ----------------------------------------------------------------------------------

#: The formats ``index_path(..., formats=...)`` can force for a file suffix.
FORMATS = ("markdown", "myst", "rst", "html", "text")
_FORMAT_OF_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".myst": "markdown",
    ".rst": "rst",
    ".rest": "rst",
    ".html": "html",
    ".htm": "html",
}


def readers() -> str:
    """Which readers make the text of Markdown and reStructuredText files here (found, not
    imported): installing or removing the ``markup`` extra changes the text."""
    from importlib.util import find_spec

    from textsearch.documents import _rst

    markdown = find_spec("markdown_it") is not None and find_spec("mdit_py_plugins") is not None
    return ("markdown-it" if markdown else "lines") + ("+docutils" if _rst.available() else "")


def _markdown(raw: str) -> tuple[str | None, list[MarkupSection]]:
    from textsearch.documents import _markdown, _rst

    if _markdown.available():
        try:
            return _markdown.markdown_sections(raw, _rst.rst_blocks if _rst.available() else None)
        except (RecursionError, ImportError):
            # Nesting the parser cannot take, or docutils found but not importable (it is
            # looked for, not loaded, until a body needs it): read it line by line below.
            pass
    title, sections = _markdown_sections(raw)
    plain = [(h, a, n, _plain_markdown(body)) for h, a, n, body in sections]
    return title, _string_blocks(plain, fences=True)


def _rst(raw: str) -> tuple[str | None, list[MarkupSection]]:
    from textsearch.documents import _rst

    if _rst.available():
        try:
            return _rst.rst_sections(raw)
        except (RecursionError, ImportError):
            pass
    title, sections = _rst_sections(raw)
    return title, _string_blocks(sections, fences=False)


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
    such; ``formats`` (suffix to ``"markdown"``, ``"myst"``, ``"rst"``, ``"html"`` or
    ``"text"``) forces a reading.
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
    if kind == "text":
        kind = format_of(suffix, raw, formats)
    if kind == "markdown":
        with collector_paused():
            title, blocks = _markdown(raw)
    elif kind == "rst":
        with collector_paused():
            title, blocks = _rst(raw)
    else:
        title, sections = _plain_sections(raw)
        blocks = _string_blocks(sections, fences=False)
    passages = _pack_blocks(blocks, limit)
    return title, passages or [Passage(None, None, 1, "")]


def split_text(text: str, *, limit: int = DEFAULT_PASSAGE_CHARS) -> list[Passage]:
    """Split a document given to ``add_documents(..., chunk=True)``: Markdown headings, then
    paragraphs (plain text is Markdown without headings). The text is kept as given (its
    markup too); fenced code blocks stay whole and exact."""
    _, sections = _markdown_sections(text)
    return _pack_blocks(_string_blocks(sections, fences=True), limit) or [
        Passage(None, None, 1, "")
    ]
