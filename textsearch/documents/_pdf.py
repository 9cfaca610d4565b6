"""PDF files read into passages: outline sections, one link per page (``#page=N``).

Read with pypdfium2 (PDFium's text layer; Apache-2.0/BSD-3-Clause), chosen over pdfminer.six
by measurement (docs/performance.md): much faster on Debian's PDF manuals, it kept section
numbers that pdfminer split off, and put running headers where the page has them.
Pages are read one at a time and closed, so memory does not grow with the page count.

Text is cleaned as a reader would want it: words PDFium marks as hyphenated at a line end
are joined, ligatures (U+FB00..FB06) become their letters, control characters go, and a
line repeated at the top or bottom of many pages (a running header, a page number) is
dropped. The outline (bookmarks, every level) gives sections, each starting where its title
is found on its page; without an outline each page is a section.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter

from textsearch.documents._blocks import Block, MarkupSection
from textsearch.documents._common import NotRead
from textsearch.documents._passages import Passage

__all__ = ["MAX_PAGES", "read_pdf"]

MAX_PAGES = 10_000
MAX_CHARS = 50_000_000  # text of one file, all pages
_MAX_OUTLINE = 5_000
_HEADING_WINDOW = 20_000  # a bookmark's title is looked for this far into its page
# PDFium is not thread-safe: one document is read at a time in a process.
_LOCK = threading.Lock()

_LIGATURES = re.compile("[\ufb00-\ufb06]")
# PDFium marks a word hyphenated at a line end with U+FFFE (and some producers use a soft
# hyphen or U+0002 before the line break): the word is joined again.
_HYPHEN_BREAK = re.compile("[\ufffe\u00ad\x02]\n?")
_HYPHEN_MARKS = ("\ufffe", "\u00ad", "\x02")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")
# A match starts only where a run of blanks starts (else a long run is rescanned per blank).
_TRAILING = re.compile("(?<![ \t])[ \t]+\n")
_LEADER = re.compile(r"(?: ?\.){5,} ?")  # a table of contents' dot leaders
# An identifier a line end broke after an underscore (``ASN1_`` / ``ARRAY_ERROR``): the
# underscore is never where a word ends, so the two halves are one word.
_UNDERSCORE_BREAK = re.compile(r"(?<=\w_)[ \t]*\n(?=\w)")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
# PDF error codes of PDFium (FPDF_GetLastError) that name the cause.
_LOAD_ERRORS = {1: "unknown error", 2: "file not found", 3: "corrupt or not a PDF", 4: "encrypted"}


def read_pdf(data: bytes, limit: int) -> tuple[str | None, list[Passage]]:
    """``(title, passages)`` of a PDF's bytes.

    Raises:
        NotRead: Corrupt, encrypted (a password is needed to open it), no text layer, or
            over the page or text limit.
    """
    import pypdfium2 as pdfium

    with _LOCK:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            code = getattr(exc, "err_code", None)
            cause = _LOAD_ERRORS.get(code or 1, "unreadable")
            if code == 4:
                cause = "encrypted (needs a password)"
            raise NotRead(f"PDF {cause}") from None
        try:
            count = len(document)
            if count > MAX_PAGES:
                raise NotRead(f"over a limit: {count} pages (at most {MAX_PAGES})")
            pages = _page_texts(document, count)
            outline = _outline(document, count)
            title = _title(document)
        finally:
            document.close()
    if not any(page.strip() for page in pages):
        raise NotRead("no text layer (scanned? no OCR)")
    if title is None:
        first = next((line.strip() for line in pages[0].split("\n") if line.strip()), "")
        title = first if 0 < len(first) <= 100 else None
    pages = _without_running_lines(pages)
    from textsearch.documents._split import _pack_blocks

    # One section per page of each outline section: a passage never runs onto the next
    # page, so the page it links to holds all of its text.
    by_page: list[MarkupSection] = [
        (heading, None, block.line, [block])
        for heading, _, _, blocks in _sections(pages, outline)
        for block in blocks
    ]
    passages = _pack_blocks(by_page, limit)
    # A block's line is its page: each passage links to the page it starts on.
    return title, [Passage(p.heading, f"page={p.line}", 1, p.text) for p in passages]


def _page_texts(document: object, count: int) -> list[str]:
    import pypdfium2 as pdfium

    pages: list[str] = []
    total = 0
    for index in range(count):
        try:
            page = document[index]  # type: ignore[index]
        except pdfium.PdfiumError:
            pages.append("")  # a damaged page: the others are still read
            continue
        try:
            textpage = page.get_textpage()
            try:
                text = textpage.get_text_range()
            finally:
                textpage.close()
        except pdfium.PdfiumError:
            text = ""
        finally:
            page.close()
        text = clean_page(text)
        total += len(text)
        if total > MAX_CHARS:
            raise NotRead(f"over a limit: more than {MAX_CHARS} characters of text")
        pages.append(text)
    return pages


def clean_page(text: str) -> str:
    """One page's text as a reader wants it (see the module's docstring)."""
    # Each pass only where its characters are (a substring test is a fast scan; a regex
    # tried at every position is not).
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if any(mark in text for mark in _HYPHEN_MARKS):
        text = _HYPHEN_BREAK.sub("", text)
    if _LIGATURES.search(text):
        text = _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    if "\x0c" in text:
        text = text.replace("\x0c", "\n")
    text = _CONTROLS.sub(" ", text)
    if ". . ." in text:
        text = _LEADER.sub(" … ", text)
    if " \n" in text or "\t\n" in text:
        text = _TRAILING.sub("\n", text)
    if "_\n" in text:
        text = _UNDERSCORE_BREAK.sub("", text)
    return text.strip()


def _title(document: object) -> str | None:
    try:
        title = str(document.get_metadata_dict().get("Title") or "").strip()  # type: ignore[attr-defined]
    except Exception:  # a metadata dictionary PDFium cannot decode: no title from it
        return None
    title = _CONTROLS.sub("", title).removeprefix("Microsoft Word - ").strip()
    if not title or title.lower() in ("untitled", "title") or len(title) > 200:
        return None
    return title


def _outline(document: object, count: int) -> list[tuple[int, str]]:
    """``(page index, title)`` of every bookmark that names a page, in page order."""
    entries: list[tuple[int, str]] = []
    try:
        for number, mark in enumerate(document.get_toc()):  # type: ignore[attr-defined]
            if number >= _MAX_OUTLINE:
                break
            dest = mark.get_dest()
            index = dest.get_index() if dest is not None else None
            name = _SPACES.sub(" ", _CONTROLS.sub(" ", mark.get_title() or "")).strip()
            if index is not None and 0 <= index < count and name:
                entries.append((index, name[:300]))
    except Exception:  # a damaged outline: read the pages without it
        return []
    entries.sort(key=lambda entry: entry[0])  # stable: same-page marks keep their order
    return entries


def _without_running_lines(pages: list[str]) -> list[str]:
    """Pages without their running headers, footers and page numbers.

    A first or last line goes when many pages share it (digits aside), or when it starts or
    ends with the page's printed number: a number that grows with the page index, at the
    same offset on many pages ("Chapter 2: Handling 3" on the fifth page of a file).
    """
    if len(pages) < 4:
        return pages
    lines = [page.split("\n") for page in pages]
    enough = max(3, len(pages) // 5)
    shared: set[tuple[int, str]] = set()
    for end in (0, -1):
        seen = Counter(_DIGITS.sub("#", ls[end].strip()) for ls in lines if len(ls) > 1)
        shared |= {(end, key) for key, n in seen.items() if n >= enough and len(key) <= 120}
    offsets: Counter[tuple[int, int]] = Counter()
    for index, page_lines in enumerate(lines):
        for end in (0, -1):
            for number in _edge_numbers(page_lines[end]) if len(page_lines) > 1 else ():
                offsets[(end, number - index)] += 1
    numbered = {key for key, n in offsets.items() if n >= max(3, len(pages) // 4)}
    if not shared and not numbered:
        return pages

    def running(page_lines: list[str], end: int, index: int) -> bool:
        line = page_lines[end]
        if (end, _DIGITS.sub("#", line.strip())) in shared:
            return True
        return any((end, n - index) in numbered for n in _edge_numbers(line))

    cleaned = []
    for index, page_lines in enumerate(lines):
        # The top of the first page is the document's own title more often than a header.
        if index and len(page_lines) > 1 and running(page_lines, 0, index):
            page_lines = page_lines[1:]
        if len(page_lines) > 1 and running(page_lines, -1, index):
            page_lines = page_lines[:-1]
        cleaned.append("\n".join(page_lines).strip())
    return cleaned


_EDGE_NUMBER = re.compile(r"^\s*(\d{1,5})\b|\b(\d{1,5})\s*$")


def _edge_numbers(line: str) -> list[int]:
    """Numbers at the start or the end of a short line (where page numbers are printed)."""
    if len(line) > 120:
        return []
    return [int(a or b) for a, b in _EDGE_NUMBER.findall(line)]


def _find_heading(text: str, name: str, start: int) -> tuple[int, int, str] | None:
    """Where a bookmark's title starts on its page, where its line ends, and the heading as
    the page shows it (with its number: the outline may say "Naming" for "2.2 Naming")."""
    words = name.split()
    if not words:
        return None
    # Words as on the page, whatever spacing or line breaks the page puts between them.
    pattern = r"\s*".join(re.escape(word) for word in words[:30])
    found = re.compile(pattern, re.IGNORECASE).search(text, start, start + _HEADING_WINDOW)
    if found is None:
        return None
    line_end = text.find("\n", found.end())
    line_end = len(text) if line_end == -1 else line_end
    begin = found.start()
    line_start = max(start, text.rfind("\n", 0, begin) + 1)
    if line_end - found.end() > 3:  # the title runs into text: the line stays in the body
        return line_start, line_start, name
    if 0 < begin - line_start <= 12:  # a number before the title: "2.1", "Chapter 3"
        return line_start, line_end, _SPACES.sub(" ", text[line_start:line_end]).strip()
    return begin, line_end, name


def _sections(pages: list[str], outline: list[tuple[int, str]]) -> list[MarkupSection]:
    """Sections of blocks whose line is the page number (1-based) they come from."""
    if not outline:
        return [(f"Page {n}", None, n, [Block(n, text)]) for n, text in enumerate(pages, 1) if text]
    sections: list[MarkupSection] = []
    heading: str | None = None
    blocks: list[Block] = []
    marks = iter(outline)
    mark = next(marks, None)
    for index, text in enumerate(pages):
        number = index + 1
        position = 0
        while mark is not None and mark[0] == index:
            found = _find_heading(text, mark[1], position)
            cut, resume, name = found if found is not None else (position, position, mark[1])
            if text[position:cut].strip():
                blocks.append(Block(number, text[position:cut].strip()))
            if blocks or heading is not None:
                sections.append((heading, None, number, blocks))
            heading, blocks, position = name, [], resume
            mark = next(marks, None)
        if text[position:].strip():
            blocks.append(Block(number, text[position:].strip()))
    sections.append((heading, None, len(pages), blocks))
    return sections
