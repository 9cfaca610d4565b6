"""A Word file whose title is a Heading 1: the title is the heading, its passages are linked (#30).

Word gives no lines to link. A Markdown file whose first line is ``# Title`` links its top
passage to the file and later ones to their lines (``#L7``); a Word file links its top
passage to the file and later passages under the title heading to that heading's anchor, so
that no two of its sections share a link (read_path documents of one id replace each other
in a store), and a title heading placed after an introduction is linked where it is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from textsearch import LocalTextSearch
from textsearch.documents import read_path

docx = pytest.importorskip("docx")

LONG = [f"Step {n}: turn dial {n} until the lamp {n} glows, then wait." for n in range(12)]


def _word(path: Path, paragraphs: list[tuple[str, str]]) -> Path:
    document = docx.Document()
    for kind, text in paragraphs:
        if kind == "p":
            document.add_paragraph(text)
        else:
            document.add_heading(text, level=int(kind[1]))
    document.save(str(path))
    return path


def _read(path: Path) -> list[tuple[str, str, str | None, str]]:
    return [
        (d["id"], d["link"], d["metadata"].get("section"), d["text"])
        for d in read_path(path, passage_chars=200)
    ]


def test_a_title_heading_first_names_the_file_and_its_passages_keep_distinct_links(
    tmp_path: Path,
) -> None:
    path = _word(
        tmp_path / "guide.docx",
        [("h1", "Install guide"), *(("p", text) for text in LONG), ("h2", "Usage"), ("p", "Go.")],
    )
    documents = _read(path)
    assert {d["title"] for d in read_path(path)} == {"Install guide"}
    ids = [d[0] for d in documents]
    assert len(ids) == len(set(ids)), ids  # no section replaces another in a store
    # the top passage is the file; the rest under the title is the title heading's section
    assert documents[0][:3] == ("guide.docx", str(path), None)
    assert documents[1][:3] == ("guide.docx#install-guide", f"{path}#install-guide", None)
    assert documents[-1][:3] == ("guide.docx#usage", f"{path}#usage", "Usage")
    text = "\n\n".join(d[3] for d in documents)
    assert all(step in text for step in LONG)  # every passage kept, none replaced
    # the same as a Markdown file whose first line is "# Install guide": file, then places
    markdown = tmp_path / "guide.md"
    markdown.write_text(
        "# Install guide\n\n" + "\n\n".join(LONG) + "\n\n## Usage\n\nGo.\n", encoding="utf-8"
    )
    written = _read(markdown)
    assert written[0][:3] == ("guide.md", str(markdown), None)
    assert written[1][0].startswith("guide.md#L") and written[-1][0] == "guide.md#usage"


def test_a_title_heading_after_an_introduction_is_linked_where_it_is(tmp_path: Path) -> None:
    path = _word(
        tmp_path / "notes.docx",
        [("p", "A word before the title."), ("h1", "Field notes"), ("p", "The river rose.")],
    )
    documents = _read(path)
    assert [d[:2] for d in documents] == [
        ("notes.docx", str(path)),
        ("notes.docx#field-notes", f"{path}#field-notes"),
    ]
    # index_path links the passage the same way
    search = LocalTextSearch()
    search.index_path(tmp_path)
    hit = search.get_search_results_sync("river rose", top=1).results[0]
    assert hit.link == f"{path}#field-notes"
    assert search.get_section(hit.link).text == "The river rose."
