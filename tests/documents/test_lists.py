"""Lists keep each item's depth and marker, also when the first item is nested (#30)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from textsearch import LocalTextSearch
from textsearch.documents import read_path
from textsearch.documents._split import split_document

docx = pytest.importorskip("docx")

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _numbering_part(document: Any) -> Any:
    """The document's numbering part with one more list: decimal, then letters, then bullets."""
    from docx.oxml import parse_xml

    numbering = document.part.numbering_part.element
    levels = "".join(
        f'<w:lvl w:ilvl="{level}"><w:start w:val="1"/><w:numFmt w:val="{kind}"/>'
        f'<w:lvlText w:val="{text}"/></w:lvl>'
        for level, kind, text in [
            (0, "decimal", "%1."),
            (1, "lowerLetter", "%2)"),
            (2, "bullet", "\u2022"),
            (3, "lowerRoman", "%1.%4."),
        ]
    )
    definition = f'<w:abstractNum xmlns:w="{_W}" w:abstractNumId="90">{levels}</w:abstractNum>'
    numbering.insert(0, parse_xml(definition))
    instance = f'<w:num xmlns:w="{_W}" w:numId="90"><w:abstractNumId w:val="90"/></w:num>'
    numbering.append(parse_xml(instance))
    return numbering


def _item(document: Any, text: str, level: int) -> None:
    """A paragraph numbered on its own (``w:numPr`` in the paragraph, as Word writes lists)."""
    from docx.oxml import parse_xml

    paragraph = document.add_paragraph(text, style="List Paragraph")
    properties = paragraph._p.get_or_add_pPr()
    properties.append(
        parse_xml(
            f'<w:numPr xmlns:w="{_W}"><w:ilvl w:val="{level}"/><w:numId w:val="90"/></w:numPr>'
        )
    )


def test_word_list_whose_first_item_is_nested_keeps_depth_and_numbers(tmp_path: Path) -> None:
    document = docx.Document()
    _numbering_part(document)
    document.add_heading("Steps", 1)
    _item(document, "Nested first", 1)
    _item(document, "Nested second", 1)
    _item(document, "Top", 0)
    _item(document, "Restarted", 1)  # a level's numbers restart after a higher item
    _item(document, "Deep", 2)
    _item(document, "Roman", 3)
    document.add_paragraph("A paragraph between two parts of the list.")
    _item(document, "Goes on", 0)  # Word's numbers go on across other paragraphs
    document.save(tmp_path / "steps.docx")
    (doc,) = read_path(tmp_path)
    assert doc["text"] == (
        "  a) Nested first\n  b) Nested second\n1. Top\n  a) Restarted\n    - Deep\n"
        "      1.i. Roman\n\n"
        "A paragraph between two parts of the list.\n\n"
        "2. Goes on"
    )


def test_word_list_styles_give_depth_and_numbers(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Nested first", style="List Bullet 2")  # the list starts nested
    document.add_paragraph("Nested second", style="List Bullet 2")
    document.add_paragraph("Back out", style="List Bullet")
    document.add_paragraph("Then a sentence.")
    document.add_paragraph("One", style="List Number")
    document.add_paragraph("Two", style="List Number")
    document.add_paragraph("Two a", style="List Number 2")
    document.add_paragraph("Indented, not a list item", style="List Continue")
    document.save(tmp_path / "styles.docx")
    (doc,) = read_path(tmp_path)
    assert doc["text"] == (
        "  - Nested first\n  - Nested second\n- Back out\n\nThen a sentence.\n\n"
        "1. One\n2. Two\n  1. Two a\n- Indented, not a list item"
    )


def test_nested_first_item_reaches_search_results_with_its_indent(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Calibrate the sextant", style="List Bullet 2")
    document.add_paragraph("Record the horizon", style="List Bullet")
    document.save(tmp_path / "nav.docx")
    search = LocalTextSearch()
    search.index_path(tmp_path)
    (hit,) = search.get_search_results_sync("sextant horizon", top=1).results
    assert hit.text == "  - Calibrate the sextant\n- Record the horizon"


def test_markdown_item_whose_first_content_is_a_list_keeps_its_marker() -> None:
    text = "# T\n\n- \n  - nested first\n  - nested second\n- top\n"
    _, passages = split_document(text, ".md")
    assert passages[0].text == "-\n  - nested first\n  - nested second\n- top"


def test_markdown_item_lines_after_the_first_stay_under_the_items_text() -> None:
    # A continuation line and a second paragraph of an item sit under its text, as in the
    # source (attrs' init.md); flush left they read as text after the list.
    text = (
        "# T\n\n- first item\n  continues here\n\n  second paragraph\n"
        "- second item\n  1. nested one\n     nested continues\n\n10. ten\n    ten continues\n"
    )
    _, passages = split_document(text, ".md")
    assert passages[0].text == (
        "- first item\n  continues here\n  second paragraph\n- second item\n"
        "  1. nested one\n     nested continues\n\n10. ten\n    ten continues"
    )


def test_markdown_nested_list_after_code_keeps_its_depth() -> None:
    # A nested list that starts a block (after the item's code): kept at its depth.
    text = (
        "1. Remove the signature:\n\n   ```sh\n   strip x\n   ```\n\n"
        "   * On macOS:\n   * On Linux:\n"
    )
    _, passages = split_document(text, ".md")
    assert passages[0].text == (
        "1. Remove the signature:\n\nstrip x\n\n  - On macOS:\n  - On Linux:"
    )


def test_rst_nested_lists_keep_depth_and_markers() -> None:
    text = (
        "Title\n=====\n\n"
        "* \n\n  * nested first\n  * nested\n\n* top\n\n"
        "#. Make a branch:\n\n   .. code-block:: shell\n\n      git checkout x\n\n"
        "   #. Enable the environment and\n      run the following:\n\n"
        ":Authors:\n   - Ann\n   - Bo\n"
    )
    _, passages = split_document(text, ".rst")
    assert passages[0].text == (
        "-\n  - nested first\n  - nested\n- top\n\n"
        "1. Make a branch:\n\ngit checkout x\n\n"
        "  1. Enable the environment and\n     run the following:\n\n"
        "Authors:\n  - Ann\n  - Bo"
    )


def test_rst_item_that_opens_with_a_line_block_keeps_its_marker() -> None:
    # pypinyin's changelog: ``* | **[Changed]** ...`` lost its bullet, its lines read as a
    # stray indented paragraph; a line typed deeper in a line block stays deeper
    text = (
        "Title\n=====\n\n"
        "* first\n* | **[Changed]** errors\n  | now once\n* third\n\n"
        "#. | one\n   | two\n\n"
        "| Alone\n|    deeper\n"
    )
    _, passages = split_document(text, ".rst")
    assert passages[0].text == (
        "- first\n- [Changed] errors\n  now once\n- third\n\n1. one\n   two\n\nAlone\n  deeper"
    )


def test_indented_text_that_is_no_list_item_loses_the_indentation_its_lines_share() -> None:
    _, passages = split_document("   An indented first line\n   and its second.\n", ".txt")
    assert passages[0].text == "An indented first line\nand its second."


def test_an_indented_code_block_in_a_text_file_keeps_its_relative_indentation() -> None:
    # Stripping the first line alone gave '# set up\n    client = make()'.
    text = "Intro.\n\n    # set up\n    client = make()\n    if client:\n        client.go()\n"
    _, passages = split_document(text, ".txt")
    assert passages[0].text == ("Intro.\n\n# set up\nclient = make()\nif client:\n    client.go()")
    # a typographic first-line indent still goes
    _, passages = split_document("Intro.\n\n   First line\nof a paragraph.\n", ".txt")
    assert passages[0].text == "Intro.\n\nFirst line\nof a paragraph."


def test_long_list_cut_into_passages_keeps_each_items_depth() -> None:
    items = "\n".join(f"  - nested item number {n} of the long list." for n in range(60))
    text = f"# T\n\n- top\n{items}\n"
    _, passages = split_document(text, ".md", limit=400)
    assert len(passages) > 3
    assert passages[0].text.startswith("- top\n  - nested item number 0 ")
    for passage in passages[1:]:
        assert passage.text.startswith("  - nested item number "), passage.text[:40]
    lines = [line for p in passages for line in p.text.split("\n")]
    assert lines == ["- top"] + [f"  - nested item number {n} of the long list." for n in range(60)]
