"""The text of Word paragraphs and table cells, read from their XML with compiled XPaths.

The same text python-docx's ``Paragraph.text`` and ``_Cell.text`` give (runs and hyperlinks'
runs; ``w:t`` as it is, tabs as ``\\t``, line breaks as ``\\n``, non-breaking hyphens as
``-``), each element still rendered by python-docx's own element classes; but python-docx
compiles its XPath expression again on every call of every paragraph and run, which was
most of the cost of reading a document (docs/performance.md).
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["cell_text", "paragraph_text"]


@cache
def _paths() -> tuple[Any, Any, Any, str, str]:
    from docx.oxml.ns import nsmap, qn
    from lxml import etree

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
