"""A zip that is not the Office file its suffix says is reported with a reason a user reads
(never an exception's class name); a CSV passage links to its own first row (#30)."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest

from tests.documents._make import make_docx, make_pptx, make_xlsx, zip_with
from textsearch import LocalTextSearch
from textsearch.documents import IndexReport, read_path

pytest.importorskip("docx")
pytest.importorskip("pptx")
pytest.importorskip("openpyxl")

MAKERS = {"docx": make_docx, "pptx": make_pptx, "xlsx": make_xlsx}


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _reason(path: Path) -> str:
    report = IndexReport()
    assert list(read_path(path, report=report)) == []
    ((failed, reason),) = report.failed
    assert failed == str(path)
    assert "Error" not in reason  # no exception class: a reason for a person
    return reason


@pytest.mark.parametrize(
    ("suffix", "part", "reason"),
    [
        ("docx", "word/document.xml", "not a Word document: word/document.xml is missing"),
        ("xlsx", "xl/workbook.xml", "not an Excel workbook: xl/workbook.xml is missing"),
        (
            "pptx",
            "ppt/presentation.xml",
            "not a PowerPoint presentation: ppt/presentation.xml is missing",
        ),
        ("docx", "[Content_Types].xml", "not a Word document: [Content_Types].xml is missing"),
        ("xlsx", "_rels/.rels", "not an Excel workbook: _rels/.rels is missing"),
    ],
)
def test_an_office_file_without_a_needed_part_says_which(
    tmp_path: Path, suffix: str, part: str, reason: str
) -> None:
    members = _members(MAKERS[suffix](tmp_path / f"real.{suffix}"))
    assert part in members
    del members[part]
    path = tmp_path / f"broken.{suffix}"
    path.write_bytes(zip_with(members))
    assert _reason(path) == reason


def test_a_zip_of_anything_else_is_not_a_word_document(tmp_path: Path) -> None:
    path = tmp_path / "photos.docx"
    path.write_bytes(zip_with({"a.xml": b"<a/>", "notes.txt": b"holiday"}))
    assert _reason(path) == "not a Word document: word/document.xml is missing"


def test_a_workbook_under_a_word_suffix_is_named_as_what_it_is(tmp_path: Path) -> None:
    path = tmp_path / "report.docx"
    path.write_bytes(make_xlsx(tmp_path / "real.xlsx").read_bytes())
    assert _reason(path) == "not a Word document: it is an Excel workbook (xl/workbook.xml)"


def test_a_part_named_by_a_relationship_but_missing_is_damage_not_a_key(tmp_path: Path) -> None:
    members = _members(make_docx(tmp_path / "real.docx"))
    del members["word/styles.xml"]  # word/_rels/document.xml.rels still names it
    path = tmp_path / "damaged.docx"
    path.write_bytes(zip_with(members))
    assert _reason(path) == "DOCX damaged: a part it refers to is missing from the archive"


def test_real_office_files_still_read(tmp_path: Path) -> None:
    for suffix, make in MAKERS.items():
        report = IndexReport()
        docs = list(read_path(make(tmp_path / f"ok.{suffix}"), report=report))
        assert docs and report.failed == [], suffix


def _csv(rows: int) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["name", "city", "note"])
    for number in range(2, rows + 2):  # RFC 7111: the header is row 1
        writer.writerow([f"person{number}", f"town{number}", f"remark {number} zebra{number}"])
    return out.getvalue()


def test_every_csv_passage_links_to_its_own_first_row(tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    path.write_text(_csv(600), encoding="utf-8")
    docs = list(read_path(path, passage_chars=500))
    assert len(docs) > 20  # many passages, not one
    for doc in docs:
        first = int(doc["link"].rsplit("#row=", 1)[1])
        assert doc["metadata"]["row"] == first
        # the passage's first line is that row (its "name" cell says its number)
        assert doc["text"].split("\n", 1)[0].startswith(f"name: person{first};")
    # a search that finds row N links to the passage holding it, at or before N
    search = LocalTextSearch(passage_chars=500)
    search.index_path(tmp_path)
    for row in (2, 250, 601):
        top = search.get_search_results_sync(f"zebra{row}", top=1).results[0]
        assert top.link is not None and f"zebra{row}" in top.text
        first = int(top.link.rsplit("#row=", 1)[1])
        assert first <= row and top.text.split("\n")[row - first].startswith(f"name: person{row};")
        assert top.metadata == {"row": first}


def test_a_page_break_between_words_does_not_glue_them(tmp_path: Path) -> None:
    import docx
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    paragraph = document.add_paragraph("before the break")
    paragraph.add_run().add_break(WD_BREAK.PAGE)
    paragraph.add_run("after the page")
    column = document.add_paragraph("left column")
    column.add_run().add_break(WD_BREAK.COLUMN)
    column.add_run("right column")
    document.add_paragraph("soft").add_run().add_break()  # a line break: as python-docx
    path = tmp_path / "breaks.docx"
    document.save(path)
    text = "\n\n".join(doc["text"] for doc in read_path(path))
    assert "before the break\nafter the page" in text
    assert "left column\nright column" in text
    assert "breakafter" not in text and "columnright" not in text
