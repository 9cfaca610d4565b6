"""The text of Word paragraphs and table cells, read from their XML with compiled XPaths.

The same text python-docx's ``Paragraph.text`` and ``_Cell.text`` give (runs and hyperlinks'
runs; ``w:t`` as it is, tabs as ``\\t``, line breaks as ``\\n``, non-breaking hyphens as
``-``), each element still rendered by python-docx's own element classes; but python-docx
compiles its XPath expression again on every call of every paragraph and run, which was
most of the cost of reading a document (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import import_module
from typing import Any

__all__ = ["cell_text", "paragraph_text", "table_rows"]


@cache
def _paths() -> tuple[Any, Any, Any, str, str]:
    from docx.oxml.ns import nsmap, qn

    etree: Any = import_module("lxml.etree")  # python-docx's parser (lxml ships no types)

    namespaces = {"w": nsmap["w"]}
    return (
        etree.XPath("w:r | w:hyperlink", namespaces=namespaces),
        etree.XPath("w:br | w:cr | w:noBreakHyphen | w:ptab | w:t | w:tab", namespaces=namespaces),
        etree.XPath("w:r", namespaces=namespaces),
        qn("w:hyperlink"),
        qn("w:p"),
    )


def paragraph_text(paragraph: Any) -> str:
    """The text of a ``w:p`` element, as ``Paragraph.text`` gives it."""
    parts, run_parts, links, hyperlink, _ = _paths()
    out: list[str] = []
    for item in parts(paragraph):
        for run in links(item) if item.tag == hyperlink else (item,):
            out.extend(str(part) for part in run_parts(run))
    return "".join(out)


def cell_text(cell: Any) -> str:
    """The text of a ``w:tc`` element, as ``_Cell.text`` gives it (its paragraphs, one a
    line; a nested table is not part of it)."""
    paragraph = _paths()[4]
    return "\n".join(paragraph_text(p) for p in cell.iterchildren(paragraph))


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
