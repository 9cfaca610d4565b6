"""Crafted PDF and Office files cost time linear in their size (#30).

As in tests/connectors/local/test_local_crafted_input.py: each case is built at two sizes, the
second four times the first, and both are read in the same run, so a busy machine slows
both alike; the test fails on a blow-up (a quadratic case costs ~16x for 4x the input),
never on a slow machine. No absolute time limit.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from functools import cache

import pytest

from tests.documents._make import Mark, make_pdf
from textsearch.documents._common import NotRead
from textsearch.documents._formats import split_file

pytest.importorskip("pypdfium2")
pytest.importorskip("docx")
pytest.importorskip("pptx")
pytest.importorskip("openpyxl")

#: The larger size is this many times the smaller one.
GROWTH = 4
#: Largest accepted cost ratio per byte: linear is about 1, quadratic about ``GROWTH``.
MAX_RATIO = 2.5

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"'


# the parts the cases write (the body, the slide, the sheet and its strings)
_CONTENT = ("word/document.xml", "ppt/slides/slide", "xl/worksheets/", "xl/sharedStrings")


def _n(count: int, scale: float) -> int:
    return max(1, int(count * scale))


def _replaced(package: bytes, member: str, body: str) -> bytes:
    """A copy of a zip package with one member's content replaced."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(package)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            data = body.encode() if info.filename == member else source.read(info)
            target.writestr(info.filename, data)
    return out.getvalue()


@cache
def _blank_docx() -> bytes:
    import docx

    out = io.BytesIO()
    docx.Document().save(out)
    return out.getvalue()


@cache
def _blank_pptx() -> bytes:
    import pptx

    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _docx(body: str) -> bytes:
    head = '<?xml version="1.0" encoding="UTF-8"?>'
    xml = f"{head}<w:document {W}><w:body>{body}</w:body></w:document>"
    return _replaced(_blank_docx(), "word/document.xml", xml)


def _cell(text: str, merge: str = "") -> str:
    return f"<w:tc><w:tcPr>{merge}</w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"


def _row(cells: str) -> str:
    return f"<w:tr>{cells}</w:tr>"


def _table(rows: str, columns: int) -> str:
    grid = "".join('<w:gridCol w:w="100"/>' for _ in range(columns))
    return f"<w:tbl><w:tblGrid>{grid}</w:tblGrid>{rows}</w:tbl>"


def _many_runs(k: float) -> bytes:
    runs = "".join(
        f'<w:r><w:t xml:space="preserve">w{i} </w:t></w:r>' for i in range(_n(40_000, k))
    )
    return _docx(f"<w:p>{runs}</w:p>")


def _nested_tables(k: float) -> bytes:
    inner = _table(_row(_cell("in a") + _cell("in b")), 2)
    cell = f"<w:tc><w:p><w:r><w:t>out</w:t></w:r></w:p>{inner}<w:p/></w:tc>"
    return _docx(_table("".join(_row(cell + _cell(f"r{i}")) for i in range(_n(4_000, k))), 2))


def _merged_column(k: float) -> bytes:
    # one column merged down every row: a reader that looks up the top of the merge from
    # each row walks the rows above it
    first = _row(_cell("top", '<w:vMerge w:val="restart"/>') + _cell("r0"))
    rest = "".join(_row(_cell("", "<w:vMerge/>") + _cell(f"r{i}")) for i in range(1, _n(3_000, k)))
    return _docx(_table(first + rest, 2))


def _wide_table_row(k: float) -> bytes:
    count = _n(8_000, k)
    return _docx(_table(_row("".join(_cell(f"c{i}") for i in range(count))), count))


def _many_paragraphs(k: float) -> bytes:
    style = '<w:pPr><w:pStyle w:val="ListBullet"/><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr>'
    return _docx(
        "".join(f"<w:p>{style}<w:r><w:t>item {i}</w:t></w:r></w:p>" for i in range(_n(20_000, k)))
    )


def _many_shapes(k: float) -> bytes:
    shapes = "".join(
        f'<p:sp><p:nvSpPr><p:cNvPr id="{i + 2}" name="t{i}"/><p:cNvSpPr txBox="1"/><p:nvPr/>'
        f"</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>shape {i}</a:t></a:r></a:p>"
        "</p:txBody></p:sp>"
        for i in range(_n(6_000, k))
    )
    xml = (
        f'<?xml version="1.0" encoding="UTF-8"?><p:sld {P} {A}><p:cSld><p:spTree>'
        '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
        f"<p:grpSpPr/>{shapes}</p:spTree></p:cSld></p:sld>"
    )
    return _replaced(_blank_pptx(), "ppt/slides/slide1.xml", xml)


def _nested_groups(k: float) -> bytes:
    depth = 15  # beyond what is read (20 levels), lxml's own depth cap is far off
    leaf = "".join(
        f'<p:sp><p:nvSpPr><p:cNvPr id="{i + 100}" name="t"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>'
        f"<p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>leaf {i}</a:t></a:r></a:p></p:txBody></p:sp>"
        for i in range(_n(3_000, k))
    )
    group = leaf
    for level in range(depth):
        group = (
            f'<p:grpSp><p:nvGrpSpPr><p:cNvPr id="{level + 2}" name="g"/><p:cNvGrpSpPr/><p:nvPr/>'
            f"</p:nvGrpSpPr><p:grpSpPr/>{group}</p:grpSp>"
        )
    xml = (
        f'<?xml version="1.0" encoding="UTF-8"?><p:sld {P} {A}><p:cSld><p:spTree>'
        '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
        f"<p:grpSpPr/>{group}</p:spTree></p:cSld></p:sld>"
    )
    return _replaced(_blank_pptx(), "ppt/slides/slide1.xml", xml)


def _xlsx(rows: list[list[object]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("data")
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _wide_row(k: float) -> bytes:
    width = _n(16_000, k)
    return _xlsx([[f"h{i}" for i in range(width)], [f"v{i}" for i in range(width)]])


def _long_cells(k: float) -> bytes:
    return _xlsx([["a", "b"]] + [["word " * 2_000, i] for i in range(_n(200, k))])


def _tiny_pages(k: float) -> bytes:
    return make_pdf([[f"p{i}"] for i in range(_n(2_000, k))])


def _deep_outline(k: float) -> bytes:
    count = _n(500, k)
    pages = [[f"Part {i}", f"Body of part {i}."] for i in range(count)]
    mark: list[Mark] = []
    for i in reversed(range(count)):  # each level holds the next: 500 levels deep
        mark = [(f"Part {i}", i, mark)]
    return make_pdf(pages, outline=mark)


def _outline_on_one_page(k: float) -> bytes:
    # many bookmarks on one long page, titles found at its end or not at all: each title
    # searched from the top of the page would cost marks x page
    count = _n(1_500, k)
    lines = [f"line {i} of the one long page" for i in range(count)]
    marks = [(f"Missing title {i}", 0, []) for i in range(count)]
    return make_pdf([lines], outline=marks)


def _wide_outline(k: float) -> bytes:
    count = _n(1_500, k)
    pages = [[f"Chapter {i}", "Some text."] for i in range(count)]
    return make_pdf(pages, outline=[(f"Chapter {i}", i, []) for i in range(count)])


def _rule_runs(k: float) -> bytes:
    # near-rules: long runs that end in a word, spaced runs that end in a letter, leaders
    lines = ["-" * 400 + "x", "_ " * 200 + "y", "= " * 3 + "=" * 300 + "z", "." * 400 + " 7"]
    return make_pdf([lines * 4 for _ in range(_n(40, k))])


CASES: dict[str, tuple[str, Callable[[float], bytes]]] = {
    "docx-many-runs": (".docx", _many_runs),
    "docx-nested-tables": (".docx", _nested_tables),
    "docx-merged-column": (".docx", _merged_column),
    "docx-wide-table-row": (".docx", _wide_table_row),
    "docx-many-list-items": (".docx", _many_paragraphs),
    "pptx-many-shapes": (".pptx", _many_shapes),
    "pptx-nested-groups": (".pptx", _nested_groups),
    "xlsx-wide-row": (".xlsx", _wide_row),
    "xlsx-long-cells": (".xlsx", _long_cells),
    "pdf-many-tiny-pages": (".pdf", _tiny_pages),
    "pdf-rule-runs": (".pdf", _rule_runs),
    "pdf-deep-outline": (".pdf", _deep_outline),
    "pdf-wide-outline": (".pdf", _wide_outline),
    "pdf-outline-on-one-page": (".pdf", _outline_on_one_page),
}


def _cost(data: bytes, suffix: str) -> float:
    started = time.process_time()
    try:
        split_file(data, suffix)
    except NotRead as exc:  # every case is a file that is read
        raise AssertionError(f"not read: {exc}") from None
    return time.process_time() - started


def _size(data: bytes) -> int:
    """Bytes of crafted content: a PDF's own; an Office file's content parts once inflated
    (the rest is the library's blank template, read at a fixed cost)."""
    if data.startswith(b"%PDF"):
        return len(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return sum(m.file_size for m in archive.infolist() if m.filename.startswith(_CONTENT))


def _ratio(suffix: str, small: bytes, large: bytes) -> tuple[float, float, float]:
    _cost(small, suffix)  # imports and first-use compilation out of the clock
    small_cost = min(_cost(small, suffix) for _ in range(2))
    large_cost = _cost(large, suffix)
    # cost per byte of the large file over that of the small one
    per_byte = (large_cost / _size(large)) / (small_cost / _size(small))
    return per_byte, small_cost, large_cost


@pytest.mark.parametrize("case", sorted(CASES))
def test_crafted_document_is_read_in_linear_time(case: str) -> None:
    suffix, make = CASES[case]
    small, large = make(1 / GROWTH), make(1.0)
    assert _size(large) > 2.5 * _size(small)  # the sizes really grow
    ratio, a, b = _ratio(suffix, small, large)
    if ratio > MAX_RATIO:  # a hiccup on a busy machine is not a blow-up: look again
        ratio, a, b = min(_ratio(suffix, small, large) for _ in range(2))
    assert ratio <= MAX_RATIO, (
        f"{case}: {_size(large) / _size(small):.1f}x the bytes cost {b / a:.1f}x the CPU "
        f"({a:.3f} s -> {b:.3f} s)"
    )


def test_merged_cells_read_as_python_docx_reads_them() -> None:
    # The one-pass table reader gives python-docx's own cells (which walks up the rows for
    # each merged cell): spans across columns, merges down rows, a row starting late.
    import docx

    from textsearch.documents._word import table_rows

    span = '<w:gridSpan w:val="2"/>'
    rows = [
        _row(_cell("wide", span) + _cell("top", '<w:vMerge w:val="restart"/>')),
        _row(_cell("a") + _cell("b") + _cell("", "<w:vMerge/>")),
        _row(_cell("c", span) + _cell("", '<w:vMerge w:val="continue"/>')),
        '<w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr>' + _cell("d") + _cell("e") + "</w:tr>",
    ]
    document = docx.Document(io.BytesIO(_docx(_table("".join(rows), 3))))
    (table,) = document.tables
    expected = []
    for row in table.rows:
        cells, last = [], None
        for cell in row.cells:
            if cell._tc is not last:
                cells.append(cell.text)
                last = cell._tc
        expected.append(cells)
    assert expected == [["wide", "top"], ["a", "b", "top"], ["c", "top"], ["d", "e"]]
    assert [[text for _, text in cells] for cells in table_rows(table._tbl)] == expected
