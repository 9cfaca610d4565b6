"""PDF files read into passages: outline sections, one link per page (``#page=N``).

Read with pypdfium2 (PDFium's text layer; Apache-2.0/BSD-3-Clause), chosen over pdfminer.six
by measurement (docs/performance.md): much faster on Debian's PDF manuals, it kept section
numbers that pdfminer split off, and put running headers where the page has them.
Pages are read one at a time and closed, so memory does not grow with the page count.

Text is cleaned as a reader would want it: words PDFium marks as hyphenated at a line end
are joined, ligatures (U+FB00..FB06) become their letters, control characters go, and a
line repeated at the top or bottom of many pages (a running header, a page number) is
dropped. Rules typed as text are markup, not words: a line of four or more dashes,
underscores or equals signs (under a table's header) goes, so does a run of four or more
standing alone in a line (a form's blank), and dot leaders (``Title ....... 12``) become
" … ". The outline (bookmarks, every level) gives sections, each starting where its title
is found on its page; without an outline each page is a section.
"""

from __future__ import annotations

import codecs
import ctypes
import re
import threading
import unicodedata
from collections import Counter
from itertools import compress, repeat
from typing import Any

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
_LIGATURE_CHARS = tuple(map(chr, range(0xFB00, 0xFB07)))
# PDFium marks a word hyphenated at a line end with U+FFFE (and some producers use a soft
# hyphen or U+0002 before the line break): the word is joined again.
_HYPHEN_BREAK = re.compile("[\ufffe\u00ad\x02]\n?")
_HYPHEN_MARKS = ("\ufffe", "\u00ad", "\x02")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")
# A match starts only where a run of blanks starts (else a long run is rescanned per blank).
_TRAILING = re.compile("(?<![ \t])[ \t]+\n")
_LEADER = re.compile(r"(?: ?\.){5,} ?")  # a table of contents' dot leaders
# Rules typed as characters: a line of one rule character (maybe spaced), four or more, and
# a run of four or more standing alone (what is left of a line is kept). Linear: a run is
# tried once from its first character (the lookbehind fails inside it).
_RULE_LINE = re.compile(r"^[ \t]*([-_=\u2500\u2501\u2014])(?:[ \t]*\1){3,}[ \t]*(?:\n|\Z)", re.M)
_RULE_RUN = re.compile(r"(?<!\S)([-_=\u2500\u2501\u2014])\1{3,}(?!\S)[ \t]?")
_RULE_MARKS = ("----", "____", "====", "\u2500" * 4, "\u2501" * 4, "\u2014" * 4, "- - - -")
# An identifier a line end broke after an underscore (``ASN1_`` / ``ARRAY_ERROR``): the
# underscore is never where a word ends, so the two halves are one word.
_UNDERSCORE_BREAK = re.compile(r"(?<=\w_)[ \t]*\n(?=\w)")
_DIGITS = re.compile(r"\d+")
# An underscore TeX draws as a rule (see `drawn_underscores`): its height and length, in points.
_RULE_HEIGHT = 1.5
_RULE_WIDTH = (1.5, 12.0)
_MAX_RULES = 1_000  # on one page (nettle's manual: 102 at most)
# Each rule's character lookup scans the page's characters: rules times characters is bounded
# (nettle's manual: 293,862 at most), so that a crafted page of huge text and many rules costs
# a few milliseconds more than its text, not seconds.
_MAX_RULE_WORK = 2_000_000
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
            pages = _page_texts(document, count, _typeset_by_tex(document))
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


def _page_texts(document: Any, count: int, underscores: bool) -> list[str]:
    calls = _calls()
    handle = _address(document.raw)
    pages: list[str] = []
    total = 0
    for index in range(count):
        page = calls.load_page(handle, index)
        if not page:
            pages.append("")  # a damaged page: the others are still read
            continue
        text = ""
        try:
            textpage = calls.load_text(page)
            if textpage:  # else a page PDFium cannot read the text of: no text
                try:
                    text = _text_range(calls, textpage)
                    if underscores:
                        text = drawn_underscores(page, textpage, text)
                finally:
                    calls.close_text(textpage)
        finally:
            calls.close_page(page)
        text = clean_page(text)
        total += len(text)
        if total > MAX_CHARS:
            raise NotRead(f"over a limit: more than {MAX_CHARS} characters of text")
        pages.append(text)
    return pages


def _text_range(calls: _Calls, textpage: int) -> str:
    """The text page's text, as pypdfium2's ``get_text_range()`` reads it (its calls, minus
    the page and text page objects it makes and finalizes: ~8% of reading a page).

    Characters at either end that PDFium leaves out of the text are left out of the range
    asked for, else PDFium reads past it (crbug.com/pdfium/2079).
    """
    first, last = 0, calls.count_chars(textpage) - 1
    start = end = -1
    while first <= last and (start := calls.text_index(textpage, first)) == -1:
        first += 1
    while first <= last and (end := calls.text_index(textpage, last)) == -1:
        last -= 1
    if first > last:
        return ""
    buffer = (ctypes.c_ushort * (end + 2 - start))()
    written = calls.get_text(textpage, first, last + 1 - first, buffer)
    # ``written`` counts the closing NUL; 0 when PDFium read nothing (never the whole buffer)
    kept = min(max(written - 1, 0), len(buffer))
    return codecs.decode(memoryview(buffer)[:kept], "utf-16-le", "ignore")


class _Calls:
    """PDFium's functions for reading pages, called with plain addresses and numbers.

    pypdfium2's bindings wrap every handle they return in a ctypes pointer object and check
    it again on the way back in; a page has thousands of objects, each looked at by the
    underscore pass, so the same functions are bound here once with ``void *`` handles (the
    same library, the same calling convention): looking at them costs about half as much.
    """

    def __init__(self) -> None:
        import pypdfium2.raw as pdfium_c

        handle, number, real = ctypes.c_void_p, ctypes.c_int, ctypes.c_double
        floats, doubles = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double)

        def bind(function: Any, result: Any, *arguments: Any) -> Any:
            address = ctypes.cast(function, ctypes.c_void_p).value
            bound = type(function)(address)
            bound.restype, bound.argtypes = result, arguments
            return bound

        self.load_page = bind(pdfium_c.FPDF_LoadPage, handle, handle, number)
        self.close_page = bind(pdfium_c.FPDF_ClosePage, None, handle)
        self.load_text = bind(pdfium_c.FPDFText_LoadPage, handle, handle)
        self.close_text = bind(pdfium_c.FPDFText_ClosePage, None, handle)
        self.text_index = bind(pdfium_c.FPDFText_GetTextIndexFromCharIndex, number, handle, number)
        shorts = ctypes.POINTER(ctypes.c_ushort)
        self.get_text = bind(pdfium_c.FPDFText_GetText, number, handle, number, number, shorts)
        self.count_objects = bind(pdfium_c.FPDFPage_CountObjects, number, handle)
        self.get_object = bind(pdfium_c.FPDFPage_GetObject, handle, handle, number)
        self.get_type = bind(pdfium_c.FPDFPageObj_GetType, number, handle)
        self.get_bounds = bind(pdfium_c.FPDFPageObj_GetBounds, number, handle, *[floats] * 4)
        self.count_chars = bind(pdfium_c.FPDFText_CountChars, number, handle)
        self.char_at = bind(
            pdfium_c.FPDFText_GetCharIndexAtPos, number, handle, real, real, real, real
        )
        self.char_box = bind(pdfium_c.FPDFText_GetCharBox, number, handle, number, *[doubles] * 4)
        self.font_size = bind(pdfium_c.FPDFText_GetFontSize, real, handle, number)
        self.path = pdfium_c.FPDF_PAGEOBJ_PATH


_CALLS: list[_Calls] = []  # made on first use (under _LOCK, as every PDFium call here)


def _calls() -> _Calls:
    if not _CALLS:
        _CALLS.append(_Calls())
    return _CALLS[0]


def _address(pointer: Any) -> int:
    return ctypes.cast(pointer, ctypes.c_void_p).value or 0


def _underscore_rules(page: int) -> list[tuple[float, float, float, float]]:
    """The page's paths shaped like an underscore: a rule at most 1.5 pt high, 1.5-12 pt long."""
    calls = _calls()
    handle = page
    count = calls.count_objects(handle)
    # Each object's type, in C loops (map, compress): no Python statement per object.
    items = list(map(calls.get_object, repeat(handle, count), range(count)))
    paths = compress(items, map(calls.path.__eq__, map(calls.get_type, items)))
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    refs = [ctypes.byref(value) for value in (left, bottom, right, top)]
    rules = []
    for item in paths:
        if not calls.get_bounds(item, *refs):
            continue
        width, height = right.value - left.value, top.value - bottom.value
        if 0 < height <= _RULE_HEIGHT and _RULE_WIDTH[0] <= width <= _RULE_WIDTH[1]:
            rules.append((left.value, bottom.value, right.value, top.value))
    return rules


def drawn_underscores(page: int, textpage: int, text: str) -> str:
    """``text`` (the page's text range) with the underscores the page draws as rules put back
    (``page``, ``textpage``: PDFium's handles, as addresses).

    TeX sets ``_`` outside its typewriter font as a short rule on the baseline, not as a
    glyph (every ``uint8_t`` and ``asn1_node`` in a Texinfo manual's definitions), so
    PDFium's text has a space, or nothing, where it is. Rules that short and thin lying in
    the gap between two characters of one line, at their baseline, are those underscores; a
    gap wider than a fifth of the font's size beside them is a space as well (``the _update``).
    """
    rules = _underscore_rules(page)
    if not rules or len(rules) > _MAX_RULES or len(rules) * len(text) > _MAX_RULE_WORK:
        return text  # none, or a drawing (hatching, a chart) rather than a page of text
    calls = _calls()
    handle = textpage
    size = len(text)
    if calls.count_chars(handle) != size:
        return text  # the text's offsets are not PDFium's character indexes
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    refs = [ctypes.byref(value) for value in (left, right, bottom, top)]
    char_at, char_box = calls.char_at, calls.char_box

    def box(index: int) -> tuple[float, float, float]:
        char_box(handle, index, *refs)
        return left.value, right.value, bottom.value

    def before_rule(rule_left: float, y: float) -> int:
        # the character left of a rule; past the rules of a run of underscores (``__x``)
        for step in range(4):
            x = rule_left - 1.0 - step * (_RULE_WIDTH[1] / 2)
            index: int = char_at(handle, x, y, 1.5, 2.0)
            if index >= 0:
                return index
        return -1

    # the character before a gap -> the rules in that gap
    gaps: dict[int, list[tuple[float, float, float, float]]] = {}
    for rule_left, rule_bottom, rule_right, rule_top in rules:
        before = before_rule(rule_left, rule_top + 2.0)
        if before < 0 or text[before] in "\r\n":
            continue
        gaps.setdefault(before, []).append((rule_left, rule_right, rule_bottom, rule_top))
    changes: list[tuple[int, int, str]] = []  # (start, end, text) replacing text[start:end]
    for before, found in gaps.items():
        after = before + 1
        while after < size and after - before <= 2 and text[after] == " ":
            after += 1
        if after >= size or text[after].isspace():
            continue
        _, gap_left, before_base = box(before)
        gap_right, _, after_base = box(after)
        base = max(before_base, after_base)
        space = 0.2 * (calls.font_size(handle, after) or 10.0)
        cursor, filled = gap_left, []
        for rule_left, rule_right, rule_bottom, rule_top in sorted(found):
            if not (
                gap_left - 0.8 <= rule_left
                and rule_right <= gap_right + 0.8
                and base - 3.0 <= rule_bottom
                and rule_top <= base + 2.0
            ):
                continue  # not between these two characters, or not on their baseline
            filled.append(" _" if rule_left - cursor > space else "_")
            cursor = rule_right
        if filled:
            filled.append(" " if gap_right - cursor > space else "")
            changes.append(
                (before + 1, after, "".join(filled).lstrip(" " if text[before] == " " else ""))
            )
    if not changes:
        return text
    pieces = []
    position = 0
    for start, end, replacement in sorted(changes):
        pieces.append(text[position:start])
        pieces.append(replacement)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def clean_page(text: str) -> str:
    """One page's text as a reader wants it (see the module's docstring)."""
    # Each pass only where its characters are (a substring test is a fast scan; a regex
    # tried at every position is not).
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if any(mark in text for mark in _HYPHEN_MARKS):
        text = _HYPHEN_BREAK.sub("", text)
    if any(ligature in text for ligature in _LIGATURE_CHARS):
        text = _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    if "\x0c" in text:
        text = text.replace("\x0c", "\n")
    text = _CONTROLS.sub(" ", text)
    if ". . ." in text or "....." in text:
        text = _LEADER.sub(" … ", text)
    if any(mark in text for mark in _RULE_MARKS):
        text = _RULE_RUN.sub("", _RULE_LINE.sub("", text))
    if " \n" in text or "\t\n" in text:
        text = _TRAILING.sub("\n", text)
    if "_\n" in text:
        text = _UNDERSCORE_BREAK.sub("", text)
    return text.strip()


def _typeset_by_tex(document: object) -> bool:
    """Whether TeX made the PDF (its Creator or Producer says so): the PDFs whose underscores
    may be drawn as rules (`drawn_underscores`; other PDFs are not scanned for them)."""
    try:
        meta = document.get_metadata_dict()  # type: ignore[attr-defined]
    except Exception:  # a metadata dictionary PDFium cannot decode
        return False
    made_by = f"{meta.get('Creator') or ''} {meta.get('Producer') or ''}".lower()
    return "tex" in made_by or "dvi" in made_by


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
