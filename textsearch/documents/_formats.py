"""Which reader reads a file: the dispatch by suffix, the binary formats and their limits.

Text formats (Markdown, reStructuredText, HTML, plain text) are read by ``_split``; CSV/TSV
and notebooks by ``_tabular`` and ``_notebook`` (standard library only); PDF, DOCX, PPTX and
XLSX by ``_pdf`` and ``_office``, whose libraries come with the ``documents`` extra. A file
that cannot be read raises `NotRead`, which ``read_file`` turns into a line of the report:
``skipped`` when the reader is not installed, ``failed`` otherwise. Nothing here is imported
until a file is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from importlib.util import find_spec
from urllib.parse import unquote

from textsearch.documents._common import NotRead, clean_text, sheet_fragment
from textsearch.documents._passages import DEFAULT_PASSAGE_CHARS, Passage

__all__ = [
    "BINARY_FORMATS",
    "EXTRA_HINT",
    "SECTION_LINES",
    "TEXT_MAX_BYTES",
    "PASSAGE_LINES",
    "NotRead",
    "clean_text",
    "fragment_metadata",
    "is_place",
    "max_bytes",
    "section_passages",
    "section_starts",
    "sheet_fragment",
    "split_file",
]

#: Formats read from bytes by a library of the ``documents`` extra (module that must import).
BINARY_FORMATS = {
    "pdf": "pypdfium2",
    "docx": "docx",
    "pptx": "pptx",
    "xlsx": "openpyxl",
}
#: Formats read by the standard library.
TABULAR_FORMATS = ("csv", "tsv", "ipynb")
_SUFFIX_FORMAT = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".ipynb": "ipynb",
}
EXTRA_HINT = 'pip install "textsearch-sdk[documents]"'
TEXT_MAX_BYTES = 20 * 1024 * 1024
#: A PDF or an Office file may be larger than a text file (images, fonts).
BINARY_MAX_BYTES = 200 * 1024 * 1024


def format_for(suffix: str, formats: Mapping[str, str] | None) -> str | None:
    """The binary or tabular format a suffix is read as, or ``None`` for a text format."""
    suffix = suffix.lower()
    if formats and suffix in formats:
        kind = formats[suffix]
        return kind if kind in BINARY_FORMATS or kind in TABULAR_FORMATS else None
    return _SUFFIX_FORMAT.get(suffix)


def max_bytes(suffix: str, formats: Mapping[str, str] | None = None) -> int:
    """The largest file read under this suffix, in bytes."""
    return BINARY_MAX_BYTES if format_for(suffix, formats) in BINARY_FORMATS else TEXT_MAX_BYTES


def split_file(
    data: bytes,
    suffix: str,
    *,
    limit: int = DEFAULT_PASSAGE_CHARS,
    formats: Mapping[str, str] | None = None,
) -> tuple[str | None, list[Passage]]:
    """``(title, passages)`` of a file's bytes, by the format its suffix names.

    Raises:
        NotRead: The file is binary under a text suffix, damaged, encrypted, has no text,
            is over a limit, or its reader is not installed.
    """
    kind = format_for(suffix, formats)
    if kind in BINARY_FORMATS:
        if find_spec(BINARY_FORMATS[kind]) is None:
            raise NotRead(f"reading {kind.upper()} needs {EXTRA_HINT}", missing=True)
        if kind == "pdf":
            from textsearch.documents._pdf import read_pdf

            return read_pdf(data, limit)
        from textsearch.documents import _office

        return _office.read_office(kind, data, limit)
    text = decoded_text(data, suffix)
    if kind in ("csv", "tsv"):
        from textsearch.documents._tabular import read_delimited

        return read_delimited(text, "\t" if kind == "tsv" else None, limit, data)
    if kind == "ipynb":
        from textsearch.documents._notebook import read_notebook

        return read_notebook(
            text if text is not None else data.decode("utf-8-sig", "replace"), limit
        )
    from textsearch.documents._split import split_document

    if text is None:  # UTF-8 or a single-byte text: the readers decode it themselves
        return split_document(data, suffix, limit=limit, formats=formats)
    return split_document(text, suffix, limit=limit, formats=formats)


# -- binary content under a text suffix ---------------------------------------------------

_MAGIC = (
    (b"%PDF-", "a PDF file"),
    (b"PK\x03\x04", "a zip archive (an Office file?)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office (OLE) file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip file"),
    (b"\x7fELF", "an executable"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
# Control bytes that never occur in text (tab, line feed, form feed, carriage return and
# escape do).
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
_SAMPLE = 8192


def decoded_text(data: bytes, suffix: str) -> str | None:
    """Check that ``data`` is text; UTF-16 (with its byte order mark) comes back decoded.

    ``None``: text the readers decode themselves (UTF-8, or one byte per character).

    Raises:
        NotRead: Binary content, which is never indexed as text.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise NotRead("binary content: not valid UTF-16 after a UTF-16 mark") from None
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise NotRead(f"binary content ({what}) under a {suffix or 'text'} suffix")
    sample = data[:_SAMPLE]
    if b"\x00" in sample or (sample and len(_CONTROL.findall(sample)) * 20 > len(sample)):
        raise NotRead(f"binary content under a {suffix or 'text'} suffix (control bytes)")
    return None


# -- link fragments and the metadata they carry ----------------------------------------------

_FRAGMENT = re.compile(r"(page|slide|row)=([1-9][0-9]{0,9})|sheet=(.+)", re.DOTALL)


def stored_place(
    passage: Passage, number: int, title: str | None
) -> tuple[str | None, str | None, int | None]:
    """``(section, anchor, line)`` of a document's passage ``number`` as every store keeps it.

    The section under the document's own title is the document's top: it has no section
    name, and its first passage links the file. A page, slide, sheet or row anchor stays
    even there (it is where the text is). A later passage links its line; where its reader
    gives no lines (Word, HTML), it keeps its heading's anchor, a place to link that tells
    it from the top (a Word file whose title is a Heading 1 placed after an introduction).
    """
    section = passage.heading if passage.heading != title else None
    line = (passage.line or None) if number else None
    kept = section or is_place(passage.anchor) or (number and not (line and line > 1))
    return section, passage.anchor if kept else None, line


def is_place(anchor: str | None) -> bool:
    """Whether an anchor names a place in a file (``page=3``) rather than a heading."""
    return bool(anchor) and "=" in anchor  # type: ignore[operator]


def section_span(places: Sequence[tuple[str | None, str | None]], index: int) -> tuple[int, int]:
    """First and last index of the passages that passage ``index``'s link reads back.

    ``places`` holds each stored passage's ``(section, anchor)``, in order. A section is the
    run of passages under one heading with one anchor (a long section is several passages);
    a place anchor (a PDF's ``page=4``, a slide, a sheet) reads the whole place, whichever
    headings it holds, as the vector stores read it; a passage outside any section stands
    alone.
    """
    section, anchor = places[index]
    if not is_place(anchor) and section is None:
        return index, index
    # a place is every passage with its anchor; a section, every passage with its heading too
    whole = is_place(anchor)

    def same(other: tuple[str | None, str | None]) -> bool:
        return other[1] == anchor and (whole or other[0] == section)

    start = end = index
    while start > 0 and same(places[start - 1]):
        start -= 1
    while end + 1 < len(places) and same(places[end + 1]):
        end += 1
    return start, end


def fragment_metadata(anchor: str | None) -> dict[str, int | str]:
    """The metadata a passage's anchor carries: ``{"page": 3}`` for ``page=3``, ``slide``,
    ``row`` and ``sheet`` alike; ``{}`` for any other anchor (a heading's slug never holds
    ``=``)."""
    if not anchor or "=" not in anchor:
        return {}
    found = _FRAGMENT.fullmatch(anchor)
    if found is None:
        return {}
    if found.group(3) is not None:
        return {"sheet": unquote(found.group(3))}
    return {found.group(1): int(found.group(2))}


#: ``read_path``'s metadata key: the line of a document's text where each of its
#: ``metadata["sections"]`` starts (a page, slide or sheet that holds several sections), in
#: decimal digits (metadata lists hold strings).
SECTION_LINES = "section_lines"
#: ``read_path``'s metadata key: the line of a document's text where each of the reader's
#: passages starts (``["1", "9"]``; passages are joined by a blank line).
PASSAGE_LINES = "passage_lines"


def section_passages(
    text: str,
    metadata: Mapping[str, object] | None,
    split: Callable[[str], Sequence[Passage]],
) -> list[Passage]:
    """The passages a store keeps of a document's ``text``, split by ``split``.

    A `read_path` document says where each of the reader's passages starts
    (``metadata["passage_lines"]``): those passages are kept as they are. Its text is what a
    model reads, markup gone, so splitting it again as Markdown would misread it (a code
    line ``# set up the client`` taken for a heading and dropped from the passage).
    One that holds several sections (a PDF page with two headings on it) also says where
    each starts: ``metadata["sections"]`` names them, ``metadata["section_lines"]`` gives the
    line of ``text`` each starts on (from 1, in digits: ``["1", "7"]``), and each passage is
    named by the heading it is under, as the local index names them; the text before the
    first has no heading (the document's top). Lines stay lines of the whole ``text``.
    Any other document is ``split(text)``.
    """
    starts = section_starts(metadata)
    kept = _kept_passages(text, metadata, starts)
    if kept is not None:
        return kept
    if not starts:
        return list(split(text))
    offsets = _line_offsets(text, starts[-1][0])
    pieces: list[tuple[str | None, int]] = [(None, 1)] if starts[0][0] > 1 else []
    pieces += [(name, line) for line, name in starts if line <= len(offsets)]
    passages: list[Passage] = []
    for number, (name, line) in enumerate(pieces):
        end = offsets[pieces[number + 1][1] - 1] if number + 1 < len(pieces) else len(text)
        for passage in split(text[offsets[line - 1] : end]):
            shifted = passage.line + line - 1 if passage.line else passage.line
            passages.append(Passage(name, passage.anchor, shifted, passage.text))
    return passages


def _line_offsets(text: str, lines: int) -> list[int]:
    # offsets[n]: where line n + 1 of ``text`` starts, for its first ``lines`` lines at most
    offsets = [0]
    position = text.find("\n")
    while position != -1 and len(offsets) < lines:
        offsets.append(position + 1)
        position = text.find("\n", position + 1)
    return offsets


def _kept_passages(
    text: str, metadata: Mapping[str, object] | None, starts: list[tuple[int, str]]
) -> list[Passage] | None:
    """The reader's passages of a `read_path` document, each named by the section it is in;
    ``None`` when the document does not place them, or places them where its text does not
    break (written by another tool: then it is split as any other)."""
    lines = _line_numbers(metadata.get(PASSAGE_LINES) if metadata else None)
    if not lines or lines[0] != 1:
        return None
    offsets = _line_offsets(text, lines[-1])
    if len(offsets) < lines[-1]:
        return None
    passages: list[Passage] = []
    for number, line in enumerate(lines):
        last = number + 1 == len(lines)
        piece = text[offsets[line - 1] : len(text) if last else offsets[lines[number + 1] - 1]]
        if not last:
            if not piece.endswith("\n\n"):
                return None
            piece = piece[:-2]  # the blank line that joins two passages
        heading = next((name for at, name in reversed(starts) if at <= line), None)
        passages.append(Passage(heading, None, line, piece))
    return passages


def _line_numbers(values: object) -> list[int] | None:
    """Line numbers written as increasing decimal strings (``["1", "7"]``); ``None`` if not."""
    if not isinstance(values, list) or not values:
        return None
    numbers: list[int] = []
    for digits in values:
        if not (isinstance(digits, str) and digits.isdecimal() and len(digits) <= 9):
            return None
        line = int(digits)
        if line < 1 or (numbers and line <= numbers[-1]):
            return None
        numbers.append(line)
    return numbers


def section_starts(metadata: Mapping[str, object] | None) -> list[tuple[int, str]]:
    """``(line, heading)`` of each section a document's metadata places (see
    `section_passages`), in order; ``[]`` when it places none or its lists do not agree."""
    if not metadata:
        return []
    names, lines = metadata.get("sections"), _line_numbers(metadata.get(SECTION_LINES))
    if not isinstance(names, list) or lines is None or len(names) != len(lines):
        return []
    if not all(isinstance(name, str) for name in names):
        return []
    return list(zip(lines, names, strict=True))
