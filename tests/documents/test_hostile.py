"""Files that could hurt the process are refused and reported: zip bombs, XXE and entity
expansion, truncated and encrypted files, binary content under a text suffix (#30)."""

from __future__ import annotations

import io
import json
import sys
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from tests.documents._make import make_docx, make_pdf, make_xlsx, zip_with
from textsearch import LocalTextSearch
from textsearch.documents import IndexReport, read_path

pytest.importorskip("pypdfium2")
pytest.importorskip("docx")
pytest.importorskip("openpyxl")


def _failed(path: Path) -> list[tuple[str, str]]:
    report = IndexReport()
    docs = list(read_path(path, report=report))
    assert docs == [] and report.added == 0
    return report.failed


def _docx_with(tmp_path: Path, name: str, replace: dict[str, bytes]) -> Path:
    """A real DOCX with some parts replaced."""
    source = make_docx(tmp_path / "source.docx")
    members = {}
    with zipfile.ZipFile(source) as archive:
        for info in archive.infolist():
            members[info.filename] = replace.get(info.filename, archive.read(info))
    source.unlink()
    path = tmp_path / name
    path.write_bytes(zip_with(members))
    return path


_XXE = b"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<!DOCTYPE w:document [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:body><w:p><w:r><w:t>&secret;</w:t></w:r></w:p></w:body></w:document>"""

_LAUGHS = (
    b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol">"""
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (n, (b"&lol%d;" % (n - 1) if n > 1 else b"&lol;") * 10)
        for n in range(1, 10)
    )
    + b"""]>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData>
</worksheet>"""
)


def test_xxe_in_a_docx_is_refused_and_never_resolved(tmp_path: Path) -> None:
    path = _docx_with(tmp_path, "xxe.docx", {"word/document.xml": _XXE})
    (failure,) = _failed(path)
    assert failure == (str(path), "DOCX refused: an XML part declares a DTD (entities)")


def test_billion_laughs_in_an_xlsx_is_refused(tmp_path: Path) -> None:
    source = make_xlsx(tmp_path / "source.xlsx")
    with zipfile.ZipFile(source) as archive:
        members = {i.filename: archive.read(i) for i in archive.infolist()}
    members["xl/worksheets/sheet1.xml"] = _LAUGHS
    source.unlink()
    (tmp_path / "laughs.xlsx").write_bytes(zip_with(members))
    (failure,) = _failed(tmp_path)
    assert "declares a DTD" in failure[1]


def test_the_libraries_do_not_expand_entities_either() -> None:
    # Behind the DTD check, python-docx parses with resolve_entities=False: an entity stays
    # an unexpanded reference, never the file it names.
    from docx.oxml.parser import parse_xml

    element = parse_xml(_XXE)
    assert "root:" not in "".join(element.itertext())


def test_a_1_gib_member_is_refused_from_the_directory(tmp_path: Path) -> None:
    path = _docx_with(tmp_path, "bomb.docx", {})
    data = zip_with(
        {n: zipfile.ZipFile(path).read(n) for n in zipfile.ZipFile(path).namelist()},
        declared={"word/document.xml": 1 << 30},
    )
    path.write_bytes(data)
    tracemalloc.start()
    (failure,) = _failed(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert failure[1].startswith("over a limit:") and "zip bomb" in failure[1]
    assert peak < 20 * 1024 * 1024  # nothing was inflated


def test_a_member_that_inflates_past_its_declared_size_is_cut_and_fails(tmp_path: Path) -> None:
    # The directory says 100 bytes; the stream holds 64 MB of XML-ish zeros. Reading stops at
    # the declared size and the checksum fails: memory stays small.
    path = _docx_with(tmp_path, "liar.docx", {"word/document.xml": b"<" + b"0" * (64 << 20)})
    members = {n: zipfile.ZipFile(path).read(n) for n in zipfile.ZipFile(path).namelist()}
    path.write_bytes(zip_with(members, declared={"word/document.xml": 100}))
    tracemalloc.start()
    (failure,) = _failed(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "damaged or truncated" in failure[1]
    assert peak < 40 * 1024 * 1024


def test_too_many_members_and_too_much_inflated_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textsearch.documents import _office

    many = {f"media/{n}.bin": b"x" for n in range(_office.MAX_MEMBERS + 1)}
    (tmp_path / "many.xlsx").write_bytes(zip_with(many))
    (failure,) = _failed(tmp_path)
    assert failure[1] == f"over a limit: {_office.MAX_MEMBERS + 1} zip members (at most 10000)"
    (tmp_path / "many.xlsx").unlink()
    # counted while inflating too, whatever the directory says
    monkeypatch.setattr(_office, "MAX_INFLATED", 3 << 20)
    path = _docx_with(tmp_path, "big.docx", {"word/document.xml": b"<a/>" * (1 << 20)})
    (failure,) = _failed(path)
    assert failure[1].startswith("over a limit:")


@pytest.mark.parametrize("cut", [0.5, 0.1])
def test_truncated_office_files_fail(tmp_path: Path, cut: float) -> None:
    data = make_docx(tmp_path / "whole.docx").read_bytes()
    (tmp_path / "whole.docx").unlink()
    (tmp_path / "cut.docx").write_bytes(data[: int(len(data) * cut)])
    (failure,) = _failed(tmp_path)
    assert failure[1].startswith("DOCX damaged or truncated")


def test_truncated_xlsx_fails(tmp_path: Path) -> None:
    data = make_xlsx(tmp_path / "whole.xlsx").read_bytes()
    (tmp_path / "whole.xlsx").write_bytes(data[: len(data) // 2])
    (failure,) = _failed(tmp_path)
    assert failure[1].startswith("XLSX damaged or truncated")


def test_encrypted_office_file_fails(tmp_path: Path) -> None:
    # A password-protected Office file is an OLE container holding an encrypted package.
    (tmp_path / "secret.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 4000)
    (failure,) = _failed(tmp_path)
    assert failure[1].startswith("DOCX encrypted")


def test_a_zip_that_is_no_docx_fails(tmp_path: Path) -> None:
    (tmp_path / "other.docx").write_bytes(zip_with({"hello.txt": b"hi"}))
    (failure,) = _failed(tmp_path)
    assert failure[1] == "not a Word document: word/document.xml is missing"


def test_encrypted_truncated_corrupt_and_scanned_pdfs_fail(tmp_path: Path) -> None:
    good = make_pdf([["some text on a page"]] * 3)
    cases = {
        "encrypted.pdf": make_pdf([["secret"]], encrypted=True),
        "truncated.pdf": good[:200],
        "corrupt.pdf": b"%PDF-1.4\n" + bytes(range(256)) * 20,
        "scanned.pdf": make_pdf([[], []]),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    report = IndexReport()
    assert list(read_path(tmp_path, report=report)) == []
    reasons = dict((Path(p).name, r) for p, r in report.failed)
    assert reasons == {
        "encrypted.pdf": "PDF encrypted (needs a password)",
        "truncated.pdf": "PDF corrupt or not a PDF",
        "corrupt.pdf": "PDF corrupt or not a PDF",
        "scanned.pdf": "no text layer (scanned? no OCR)",
    }


def test_pdf_page_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.documents import _pdf

    monkeypatch.setattr(_pdf, "MAX_PAGES", 2)
    (tmp_path / "long.pdf").write_bytes(make_pdf([["page"]] * 3))
    (failure,) = _failed(tmp_path)
    assert failure[1] == "over a limit: 3 pages (at most 2)"


def test_xlsx_cell_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.documents import _office

    monkeypatch.setattr(_office, "MAX_CELLS", 50)
    make_xlsx(tmp_path / "many.xlsx", rows=40)
    (failure,) = _failed(tmp_path)
    assert failure[1] == "over a limit: more than 50 cells"


def test_binary_content_under_a_text_suffix_is_never_indexed(tmp_path: Path) -> None:
    (tmp_path / "renamed.md").write_bytes(make_pdf([["a pdf in disguise"]]))
    (tmp_path / "nuls.txt").write_bytes(b"\0" * 5000)
    (tmp_path / "zip.csv").write_bytes(zip_with({"a": b"b"}))
    (tmp_path / "bytes.rst").write_bytes(bytes(range(32)) * 100)
    (tmp_path / "fine.txt").write_text("plain words\n")
    search = LocalTextSearch()
    report = search.index_path(tmp_path)
    assert report.added == 1
    reasons = {Path(p).name: r for p, r in report.failed}
    assert reasons == {
        "renamed.md": "binary content (a PDF file) under a .md suffix",
        "nuls.txt": "binary content under a .txt suffix (control bytes)",
        "zip.csv": "binary content (a zip archive (an Office file?)) under a .csv suffix",
        "bytes.rst": "binary content under a .rst suffix (control bytes)",
    }
    assert search.document_count == 1


def test_utf16_text_with_its_mark_is_read(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_bytes("Wide characters here\n".encode("utf-16"))
    (doc,) = read_path(tmp_path)
    assert doc["text"] == "Wide characters here"


def test_malformed_notebooks_and_csv_fail(tmp_path: Path) -> None:
    (tmp_path / "bad.ipynb").write_text("{not json")
    (tmp_path / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "list.ipynb").write_text(json.dumps([1, 2]))
    (tmp_path / "huge.csv").write_text('a\n"' + "x" * 200_000 + '"\n')
    report = IndexReport()
    assert list(read_path(tmp_path, report=report)) == []
    reasons = {Path(p).name: r for p, r in report.failed}
    assert reasons["bad.ipynb"].startswith("notebook is not valid JSON")
    assert reasons["deep.ipynb"] == "notebook nested too deeply to read"
    assert reasons["list.ipynb"] == "not a notebook (no cells)"
    assert reasons["huge.csv"].startswith("malformed CSV near row")


def test_a_missing_reader_is_skipped_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.pdf").write_bytes(make_pdf([["text"]]))
    (tmp_path / "b.md").write_text("# B\n\nwords\n")
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # as if not installed
    search = LocalTextSearch()
    report = search.index_path(tmp_path)
    assert report.added == 1 and report.failed == []
    assert report.skipped == [
        (str(tmp_path / "a.pdf"), 'reading PDF needs pip install "textsearch-sdk[documents]"')
    ]
    # installed later: the next run reads it (it was never indexed)
    monkeypatch.delitem(sys.modules, "pypdfium2")
    again = search.index_path(tmp_path)
    assert again.added == 1 and again.unchanged == 1 and again.skipped == []


def test_new_suffixes_are_read_on_the_next_run_of_an_existing_index(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nwords\n")
    (tmp_path / "b.csv").write_text("k,v\nx,1\n")
    search = LocalTextSearch()
    first = search.index_path(tmp_path, extensions=(".md",))  # what an older default read
    assert first.added == 1
    second = search.index_path(tmp_path)
    assert second.added == 1 and second.unchanged == 1
    assert search.get_search_results_sync("x", top=1).results[0].link.endswith("b.csv#row=2")


def test_cli_prints_skipped_and_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.cli import main

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.pdf").write_bytes(make_pdf([["text"]]))
    (folder / "bad.txt").write_bytes(b"\0" * 100)
    for n in range(7):
        (folder / f"nul{n}.md").write_bytes(b"\0" * 100)
    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    code = main(["index", str(folder), "--db", str(tmp_path / "i.db")])
    text = out.getvalue()
    assert code == 0
    assert "skipped 1, failed 8;" in text
    assert (
        f'skipped: {folder / "a.pdf"}: reading PDF needs pip install "textsearch-sdk[documents]"'
        in text
    )
    assert text.count(f"failed: {folder}") == 5 and "failed: ... and 3 more" in text
