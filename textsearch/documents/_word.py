"""The text of Word paragraphs and table cells, read by walking their XML.

The same text python-docx's ``Paragraph.text`` and ``_Cell.text`` give (runs and hyperlinks'
runs; ``w:t`` as it is, tabs as ``\\t``, line breaks as ``\\n``, non-breaking hyphens as
``-``), read by walking the elements' children: python-docx compiles its XPath expression
again on every call of every paragraph and run, and even compiled once, evaluating an XPath
per paragraph and per run (and rendering each part through a Python method) was most of
the cost of reading a long document (docs/performance.md). The paragraphs' styles are read
from the XML the same way (`paragraph_style`; list levels and markers: `_numbering`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

__all__ = ["cell_text", "paragraph_style", "paragraph_text", "table_rows"]


@cache
def _tags() -> tuple[str, str, tuple[str, ...], dict[str, str], str, str]:
    from docx.oxml.ns import qn

    simple = {qn("w:tab"): "\t", qn("w:ptab"): "\t", qn("w:cr"): "\n", qn("w:noBreakHyphen"): "-"}
    return (
        qn("w:r"),
        qn("w:hyperlink"),
        (qn("w:br"), qn("w:cr"), qn("w:noBreakHyphen"), qn("w:ptab"), qn("w:t"), qn("w:tab")),
        simple,
        qn("w:t"),
        qn("w:p"),
    )


def paragraph_text(paragraph: Any) -> str:
    """The text of a ``w:p`` element, as ``Paragraph.text`` gives it.

    Its ``w:r`` children and the runs of its ``w:hyperlink`` children, in order; in each
    run ``w:t`` as it is, ``w:tab``/``w:ptab`` as a tab, ``w:cr`` and ``w:br`` as a line
    break, ``w:noBreakHyphen`` as ``-``: python-docx's renderings of these elements, except
    that a page or column break ends a line too (python-docx renders it as nothing, which
    glued the words on either side of it). Walked with lxml's ``iterchildren``: no XPath
    evaluated per paragraph and per run.
    """
    run, hyperlink, parts, simple, text, _ = _tags()
    out: list[str] = []
    for item in paragraph.iterchildren(run, hyperlink):
        for each in item.iterchildren(run) if item.tag == hyperlink else (item,):
            for part in each.iterchildren(*parts):
                tag = part.tag
                if tag == text:
                    out.append(part.text or "")
                elif tag in simple:
                    out.append(simple[tag])
                else:  # w:br: a line, page or column break all end a line here
                    out.append("\n")
    return "".join(out)


def cell_text(cell: Any) -> str:
    """The text of a ``w:tc`` element, as ``_Cell.text`` gives it (its paragraphs, one a
    line; a nested table is not part of it)."""
    return "\n".join(paragraph_text(p) for p in cell.iterchildren(_tags()[5]))


def _value(parent: Any, child: str, default: str | None) -> str | None:
    """The ``w:val`` of ``parent``'s child element ``child`` (``default`` when it has none)."""
    if parent is None:
        return None
    found = parent.find(_qn(child))
    if found is None:
        return None
    value = found.get(_qn("w:val"))
    return default if value is None else str(value)


def _number(parent: Any, child: str, default: int) -> int:
    value = _value(parent, child, None)
    try:
        return max(0, min(int(value), 1_000)) if value is not None else default
    except ValueError:
        return default


@cache
def _qn(name: str) -> str:
    from docx.oxml.ns import qn

    return str(qn(name))


def table_rows(table: Any) -> Iterator[list[tuple[Any, str]]]:
    """``(cell element, text)`` of each cell of each row of a ``w:tbl`` element, in order.

    The cells python-docx's ``row.cells`` gives, a cell spanning columns once: a cell that
    continues a vertical merge is the merge's first cell. python-docx finds that cell by
    walking up the rows from every continued cell (time growing with the square of the rows
    and more: a crafted table of 240 rows took seconds); here one pass keeps, for each
    column a cell starts at, the cell above it. A continued cell with no cell starting above
    it is read as itself (python-docx refuses the file).
    """
    above: dict[int, tuple[Any, str]] = {}
    for row in table.iterchildren(_qn("w:tr")):
        here: dict[int, tuple[Any, str]] = {}
        cells: list[tuple[Any, str]] = []
        offset = _number(row.find(_qn("w:trPr")), "w:gridBefore", 0)
        for cell in row.iterchildren(_qn("w:tc")):
            properties = cell.find(_qn("w:tcPr"))
            span = max(1, _number(properties, "w:gridSpan", 1))
            merged = _value(properties, "w:vMerge", "continue") == "continue"
            root = above.get(offset) if merged else None
            if root is None:
                root = (cell, cell_text(cell))
            # Kept at the column the cell starts at only: a cell spanning many columns costs
            # one entry, not one per column.
            here[offset] = root
            offset += span
            if not cells or cells[-1][0] is not root[0]:
                cells.append(root)
        above = here
        yield cells


def paragraph_style(paragraph: Any) -> str:
    """The style id of a ``w:p`` element (``w:pPr/w:pStyle/@w:val``; ``""`` for none)."""
    properties = paragraph.find(_qn("w:pPr"))
    return _value(properties, "w:pStyle", "") or ""
