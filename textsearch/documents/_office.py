"""Word, PowerPoint and Excel files (DOCX, PPTX, XLSX) read into passages.

Read with python-docx, python-pptx and openpyxl (MIT), the maintained readers of these
formats. An Office file is a zip of XML parts, so before a library opens one the archive is
checked here: its member count and the sizes its directory declares are capped, every XML
part is inflated once with the inflated bytes counted (a directory that lies about sizes
gains nothing), and a part that carries a DTD is refused (no entity, internal or external,
is ever expanded: OOXML has no use for a DTD). An encrypted Office file is not a zip but an
OLE container, and is reported as such.
"""

from __future__ import annotations

import datetime
import io
import warnings
import zipfile
from collections.abc import Iterator
from functools import cache
from importlib import import_module
from typing import Any, cast

from textsearch.documents._blocks import Block, MarkupSection
from textsearch.documents._common import NotRead, clean_text, sheet_fragment
from textsearch.documents._passages import Passage

__all__ = ["MAX_INFLATED", "MAX_MEMBERS", "check_zip", "read_office"]

MAX_MEMBERS = 10_000
MAX_INFLATED = 256 * 1024 * 1024  # bytes, all members
MAX_CELLS = 5_000_000  # cells of one workbook, empty ones included
_CHUNK = 1 << 20
_DTD_MARKS = (b"<!DOCTYPE", "<!DOCTYPE".encode("utf-16-le"), "<!DOCTYPE".encode("utf-16-be"))
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_NAMES = {"docx": "DOCX", "pptx": "PPTX", "xlsx": "XLSX"}
_PRESENTATION = "http://schemas.openxmlformats.org/presentationml/2006/main"


def read_office(kind: str, data: bytes, limit: int) -> tuple[str | None, list[Passage]]:
    """``(title, passages)`` of a DOCX, PPTX or XLSX file's bytes.

    Raises:
        NotRead: Not a valid file of its kind, encrypted, over a limit, or with a DTD.
    """
    name = _NAMES[kind]
    if data.startswith(_OLE):
        raise NotRead(f"{name} encrypted (a password-protected or old binary Office file)")
    check_zip(data, name)
    from textsearch.documents._split import _pack_blocks

    try:
        # The libraries warn about parts they drop (openpyxl: "extension is not supported"):
        # what is read is the text, and a warning must not stop indexing under -W error.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "docx":
                title, sections = _docx(data)
            elif kind == "pptx":
                title, sections = _pptx(data)
            else:
                title, sections = _xlsx(data, limit)
    except NotRead:
        raise
    except (MemoryError, RecursionError):
        raise NotRead(f"{name} too deeply nested or too large to read") from None
    except KeyError:  # a relationship names a part the archive does not have
        raise NotRead(f"{name} damaged: a part it refers to is missing from the archive") from None
    except Exception as exc:  # whatever a damaged part makes the library raise
        raise NotRead(f"{name} damaged or not a valid {name} file ({type(exc).__name__})") from None
    passages = _pack_blocks(sections, limit)
    return title, [Passage(p.heading, p.anchor, 1, clean_text(p.text)) for p in passages]


def check_zip(data: bytes, name: str) -> None:
    """Refuse an archive over the limits, with encrypted members, or with a DTD in a part.

    Raises:
        NotRead: What is wrong, for the report.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise NotRead(f"{name} damaged or truncated (not a zip archive)") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise NotRead(f"over a limit: {len(members)} zip members (at most {MAX_MEMBERS})")
        declared = sum(member.file_size for member in members)
        if declared > MAX_INFLATED:
            raise NotRead(
                f"over a limit: {declared} bytes once inflated (at most {MAX_INFLATED}; "
                "a zip bomb?)"
            )
        inflated = 0
        for member in members:
            if member.flag_bits & 0x1:
                raise NotRead(f"{name} encrypted (an encrypted zip member)")
            if not member.filename.endswith((".xml", ".rels")):
                continue  # images and fonts: a library copies them, it never parses them
            inflated = _scan_part(archive, member, inflated, name)
        if name in _MAIN:
            _check_main_part(archive, name)


#: The main part of each kind (where its ``officeDocument`` relationship usually points).
_MAIN = {
    "DOCX": ("word/document.xml", "a Word document"),
    "PPTX": ("ppt/presentation.xml", "a PowerPoint presentation"),
    "XLSX": ("xl/workbook.xml", "an Excel workbook"),
}


def _check_main_part(archive: zipfile.ZipFile, name: str) -> None:
    """Refuse a zip that is not an Office file of its kind, saying what is missing.

    Called once every part was scanned (no part declares a DTD, none is too large).

    Raises:
        NotRead: ``not a Word document: word/document.xml is missing`` and the like.
    """
    default, what = _MAIN[name]
    names = set(archive.namelist())
    target = _office_document(archive, names) or default
    if target not in names:
        raise NotRead(f"not {what}: {target} is missing")
    for other, (part, kind) in _MAIN.items():
        if other != name and target.split("/", 1)[0] == part.split("/", 1)[0]:
            raise NotRead(f"not {what}: it is {kind} ({target})")
    for needed in ("[Content_Types].xml", "_rels/.rels"):
        if needed not in names:
            raise NotRead(f"not {what}: {needed} is missing")


def _office_document(archive: zipfile.ZipFile, names: set[str]) -> str | None:
    """The part the package's ``officeDocument`` relationship names (``None``: none read)."""
    from xml.etree import ElementTree

    if "_rels/.rels" not in names:
        return None
    try:  # scanned already: no DTD, so no entity to expand
        root = ElementTree.fromstring(archive.read("_rels/.rels"))
    except (ElementTree.ParseError, zipfile.BadZipFile, OSError, ValueError):
        return None
    for element in root.iter():
        kind, target = element.get("Type") or "", element.get("Target") or ""
        if kind.endswith("/officeDocument") and target and element.get("TargetMode") is None:
            return target.lstrip("/")
    return None


def _scan_part(archive: zipfile.ZipFile, member: zipfile.ZipInfo, inflated: int, name: str) -> int:
    tail = b""
    try:
        with archive.open(member) as part:
            while chunk := part.read(_CHUNK):
                inflated += len(chunk)
                if inflated > MAX_INFLATED:
                    raise NotRead(f"over a limit: more than {MAX_INFLATED} bytes once inflated")
                window = tail + chunk
                if any(mark in window for mark in _DTD_MARKS):
                    raise NotRead(f"{name} refused: an XML part declares a DTD (entities)")
                tail = window[-20:]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError):
        raise NotRead(f"{name} damaged or truncated (a zip member cannot be read)") from None
    except NotImplementedError:
        raise NotRead(f"{name} uses a compression method that is not supported") from None
    return inflated


# -- Word ----------------------------------------------------------------------------------


def _docx(data: bytes) -> tuple[str | None, list[MarkupSection]]:
    import docx
    from docx.oxml.ns import qn

    from textsearch.documents._blocks import github_slug as _github_slug
    from textsearch.documents._numbering import ListMarkers
    from textsearch.documents._word import paragraph_style, paragraph_text

    document = docx.Document(io.BytesIO(data))
    markers = ListMarkers(document)
    styles = {style.style_id: (style.name or "") for style in document.styles}
    title = (document.core_properties.title or "").strip() or None
    sections: list[MarkupSection] = []
    used: dict[str, int] = {}
    heading: str | None = None
    anchor: str | None = None
    blocks: list[Block] = []
    # The lines of a list being read (its items' depths and markers as Word shows them),
    # joined into its block (blocks[-1]) once it ends: text added to a block item by item
    # would be copied again with each item.
    items: list[str] = []

    def close_list() -> None:
        if items:
            blocks[-1].text = "\n".join(items)
            items.clear()

    # The body's paragraphs and tables, as python-docx's iter_inner_content gives them,
    # walked as elements (no Paragraph object, no XPath per paragraph).
    table_tag = qn("w:tbl")
    for paragraph in document.element.body.iterchildren(qn("w:p"), table_tag):
        if paragraph.tag == table_tag:
            text = _word_table_text(paragraph)
            if text:
                close_list()
                blocks.append(Block(1, text))
            continue
        style_id = paragraph_style(paragraph)
        style = styles.get(style_id, "").lower()
        text = paragraph_text(paragraph).strip()
        if not text:
            continue
        if style == "title" or (style.startswith("heading") and style[7:].strip().isdigit()):
            close_list()
            sections.append((heading, anchor, 1, blocks))
            heading = " ".join(text.split())
            anchor, blocks = _github_slug(heading, used), []
            title = title or heading
            continue
        item = markers.item(paragraph, style_id)
        if item is not None or style.startswith("list"):
            depth, marker = item or (0, "-")
            text = f"{'  ' * depth}{marker} {text}"
            if not items:
                blocks.append(Block(1, text))  # one list, one block
            items.append(text)
            continue
        close_list()
        blocks.append(Block(1, text))
    close_list()
    sections.append((heading, anchor, 1, blocks))
    return title, sections


def _word_table_text(table: Any) -> str:
    """A Word ``w:tbl`` row by row, read from the XML in one pass (see ``table_rows``)."""
    from textsearch.documents._word import table_rows

    rows = ([" ".join(text.split()) for _, text in cells] for cells in table_rows(table))
    return "\n".join("; ".join(t for t in row if t) for row in rows if any(row))


def _table_text(table: Any) -> str:
    """A table row by row, each row's cells joined with ``"; "`` (a merged cell once)."""
    from docx.table import Table

    if isinstance(table, Table):
        return _word_table_text(table._tbl)
    lines: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        last = None
        for cell in row.cells:
            if cell._tc is last:
                continue
            last = cell._tc
            text = " ".join(cell.text.split())
            if text:
                cells.append(text)
        if cells:
            lines.append("; ".join(cells))
    return "\n".join(lines)


# -- PowerPoint ----------------------------------------------------------------------------


def _pptx(data: bytes) -> tuple[str | None, list[MarkupSection]]:
    import pptx

    presentation = pptx.Presentation(io.BytesIO(data))
    title = (presentation.core_properties.title or "").strip() or None
    if title == "PowerPoint Presentation":  # what PowerPoint writes when no title was given
        title = None
    sections: list[MarkupSection] = []
    for number, slide in enumerate(presentation.slides, 1):
        shapes = list(slide.shapes)
        # The title is the placeholder of index 0 (as `slide.shapes.title` finds it, without
        # walking the shapes a second time, nor looking for each one's p:ph twice).
        title_shape = next((s for s in shapes if _placeholder(s._element, "idx") == 0), None)
        name = ""
        if title_shape is not None and title_shape.has_text_frame:
            name = " ".join(title_shape.text_frame.text.split())
        blocks = [
            Block(1, text)
            for text in _shape_texts(shapes, title_shape.shape_id if title_shape else None)
        ]
        if slide.has_notes_slide:
            notes = _notes_text(slide.notes_slide)
            if notes:
                blocks.append(Block(1, notes))
        heading = name or f"Slide {number}"
        sections.append((heading, f"slide={number}", 1, blocks))
    return title, sections


@cache
def _ph_path() -> Any:
    etree: Any = import_module("lxml.etree")  # python-pptx's parser (lxml ships no types)

    # where python-pptx finds a shape's p:ph, compiled once (python-pptx compiles it on
    # every look, several times a shape)
    return etree.XPath("./*[1]/p:nvPr/p:ph", namespaces={"p": _PRESENTATION})


def _placeholder(element: Any, attribute: str) -> Any:
    """A shape element's placeholder ``idx`` or ``type`` (``None``: not a placeholder)."""
    found = _ph_path()(element)
    return getattr(found[0], attribute) if found else None


def _notes_text(notes: Any) -> str:
    """The text of a notes slide's body placeholder, as ``notes_text_frame.text`` (stripped)."""
    from pptx.enum.shapes import PP_PLACEHOLDER
    from pptx.text.text import TextFrame

    tree = notes._element.cSld.spTree
    for element in tree.iter_shape_elms():
        if _placeholder(element, "type") == PP_PLACEHOLDER.BODY:
            body = getattr(element, "txBody", None)
            return TextFrame(body, cast(Any, None)).text.strip() if body is not None else ""
    return ""


def _shape_texts(shapes: Any, skip: int | None, depth: int = 0) -> Iterator[str]:
    from pptx.shapes.graphfrm import GraphicFrame
    from pptx.shapes.group import GroupShape

    for shape in shapes:
        if depth == 0 and shape.shape_id == skip:
            continue
        if isinstance(shape, GroupShape):
            if depth < 20:
                yield from _shape_texts(shape.shapes, None, depth + 1)
        elif shape.has_text_frame:
            lines = (" ".join(line.split()) for line in shape.text_frame.text.split("\n"))
            text = "\n".join(line for line in lines if line)
            if text:
                yield text
        elif isinstance(shape, GraphicFrame) and shape.has_table:
            text = _table_text(shape.table)
            if text:
                yield text


# -- Excel ---------------------------------------------------------------------------------


def _xlsx(data: bytes, limit: int) -> tuple[str | None, list[MarkupSection]]:
    import openpyxl

    from textsearch.documents._tabular import pack_rows, row_text

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        title = (workbook.properties.title or "").strip() or None
        sections: list[MarkupSection] = []
        cells = 0
        for sheet in workbook.worksheets:
            header: list[str] | None = None
            lines: list[tuple[int, str]] = []
            for values in sheet.iter_rows(values_only=True):
                cells += len(values)
                if cells > MAX_CELLS:
                    raise NotRead(f"over a limit: more than {MAX_CELLS} cells")
                shown = [_cell(value) for value in values]
                if not any(shown):
                    continue
                if header is None:
                    if all(isinstance(v, str) for v in values if v is not None):
                        header = [h or _column(i) for i, h in enumerate(shown)]
                        continue
                    # numbers or dates in the first row: data, under the column letters
                    header = [_column(i) for i in range(len(shown))]
                lines.append((1, row_text(header, shown)))
            if header is not None and not lines:  # one row only: it is the content
                lines.append((1, "; ".join(h for h in header if h)))
            blocks = [Block(1, text) for _, text in pack_rows(lines, limit)]
            sections.append((sheet.title, sheet_fragment(sheet.title), 1, blocks))
    finally:
        workbook.close()
    return title, sections


def _column(index: int) -> str:
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(index + 1))


def _cell(value: object) -> str:
    if value is None:
        return ""
    if type(value) is str:
        return value.strip() if "\n" not in value and "\t" not in value else " ".join(value.split())
    if type(value) is int:
        return str(value)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return " ".join(str(value).split())
