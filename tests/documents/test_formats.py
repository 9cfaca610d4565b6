"""Every new format read into passages, with its sections, links and metadata (#30)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.documents._make import make_docx, make_pdf, make_pptx, make_xlsx
from textsearch import LocalTextSearch
from textsearch.documents import IndexReport, read_path

pytest.importorskip("pypdfium2")
pytest.importorskip("docx")
pytest.importorskip("pptx")
pytest.importorskip("openpyxl")

REAL_PDFS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]


def _by_link(folder: Path) -> dict[str, dict]:
    return {doc["link"]: doc for doc in read_path(folder)}


def _pdf(path: Path) -> Path:
    path.write_bytes(
        make_pdf(
            [
                ["Cover of the handbook"],
                ["1 Tides", "The moon pulls the oceans twice a day.", "manip-", "ulation"],
                [
                    "1.1 Spring tides",
                    "Spring tides follow a full or a new moon.",
                    "Neap tides are the weakest.",
                ],
                ["2 Currents", "The Gulf Stream carries warm water north."],
            ],
            outline=[("1 Tides", 1, [("1.1 Spring tides", 2, [])]), ("2 Currents", 3, [])],
            title="Ocean handbook",
        )
    )
    return path


def test_pdf_sections_from_every_outline_level_and_links_per_page(tmp_path: Path) -> None:
    _pdf(tmp_path / "ocean.pdf")
    docs = _by_link(tmp_path)
    link = str(tmp_path / "ocean.pdf")
    assert set(docs) == {f"{link}#page={n}" for n in (1, 2, 3, 4)}
    assert docs[f"{link}#page=2"]["metadata"] == {
        "path": "ocean.pdf",
        "section": "1 Tides",
        "section_index": 1,  # the file's second section (page 1 is the first)
        "passage_lines": ["1"],  # one passage of the reader's, kept as it is by stores
        "page": 2,
    }
    assert docs[f"{link}#page=3"]["metadata"]["section"] == "1.1 Spring tides"  # level 2
    assert docs[f"{link}#page=3"]["text"] == (
        "Spring tides follow a full or a new moon.\nNeap tides are the weakest."
    )
    # a word hyphenated at a line end is joined again
    assert "manipulation" in docs[f"{link}#page=2"]["text"]
    assert docs[f"{link}#page=1"]["title"] == "Ocean handbook"
    assert docs[f"{link}#page=1"]["id"] == "ocean.pdf#page=1"


def test_pdf_without_outline_has_a_section_per_page(tmp_path: Path) -> None:
    (tmp_path / "p.pdf").write_bytes(make_pdf([["alpha words here"], ["beta words here"]]))
    docs = list(read_path(tmp_path))
    assert [(d["metadata"]["section"], d["metadata"]["page"]) for d in docs] == [
        ("Page 1", 1),
        ("Page 2", 2),
    ]


def test_pdf_ligatures_and_controls_are_cleaned() -> None:
    from textsearch.documents._pdf import clean_page

    assert clean_page("e\ufb03cient \ufb01sh\x00\r\nnext") == "efficient fish \nnext".replace(
        " \n", "\n"
    )
    assert clean_page("manip\ufffe\r\nulation") == "manipulation"


def test_pdf_identifier_broken_after_an_underscore_is_one_word() -> None:
    # libtasn1's manual breaks ASN1_ARRAY_ERROR after "ASN1_" at a line end
    from textsearch.documents._pdf import clean_page

    text = "ASN1_SUCCESS, or ASN1_\nARRAY_ERROR if the array is wrong_\n and more x_\n\nNext"
    assert clean_page(text) == (
        "ASN1_SUCCESS, or ASN1_ARRAY_ERROR if the array is wrong_\n and more x_\n\nNext"
    )


def test_pdf_underscores_drawn_as_rules_are_read_back() -> None:
    # TeX draws "_" outside its typewriter font as a rule (Texinfo manuals: nettle, libtasn1):
    # PDFium's text had "uint8 t" and "asn1 node const"; the rules in the gaps are underscores.
    from textsearch.documents._formats import split_file

    drawn = [
        "void sha256_digest (struct sha256_ctx *ctx, size_t length, uint8_t *digest)",
        "int asn1_create_element (asn1_node_const definitions)",
        "the _update call, a __dunder__ name",
    ]
    page = ["Function definitions", "Lines below are drawn."]
    data = make_pdf([page], drawn=drawn, producer="pdfTeX-1.40.24")
    _, passages = split_file(data, ".pdf")
    lines = [line.strip() for p in passages for line in p.text.split("\n")]
    for line in drawn:
        assert line in lines
    assert "Lines below are drawn." in lines  # text with no rule near it is unchanged
    # Only a PDF TeX made is looked at for them: other producers draw "_" as a glyph.
    _, passages = split_file(make_pdf([page], drawn=drawn, producer="Writer"), ".pdf")
    assert "uint8_t" not in "\n".join(p.text for p in passages)


def test_pdf_page_text_is_pypdfium2s_text_range() -> None:
    # The reader loads pages through PDFium's functions directly (no page objects to make and
    # finalize): every page's text is what pypdfium2's get_text_range() gives.
    import pypdfium2 as pdfium

    from textsearch.documents import _pdf

    made = make_pdf(
        [["Manip\x01ulation of data\x02ows", "Second line"], [], ["Last page, one line"]],
        drawn=["uint8_t x"],
        producer="pdfTeX-1.40.24",
    )
    debian = Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf")
    for data in [made] + ([debian.read_bytes()] if debian.exists() else []):
        document = pdfium.PdfDocument(data)
        calls, handle = _pdf._calls(), _pdf._address(document.raw)
        try:
            for index in range(len(document)):
                page = document[index]
                textpage = page.get_textpage()
                expected = textpage.get_text_range()
                textpage.close()
                page.close()
                raw_page = calls.load_page(handle, index)
                raw_text = calls.load_text(raw_page)
                try:
                    assert _pdf._text_range(calls, raw_text) == expected, index
                finally:
                    calls.close_text(raw_text)
                    calls.close_page(raw_page)
        finally:
            document.close()


def test_search_for_a_sentence_on_page_n_returns_page_n(tmp_path: Path) -> None:
    _pdf(tmp_path / "ocean.pdf")
    search = LocalTextSearch()
    report = search.index_path(tmp_path)
    assert report.added == 1 and not report.failed and not report.skipped
    for sentence, page in (
        ("The Gulf Stream carries warm water north", 4),
        ("Neap tides are the weakest", 3),
        ("The moon pulls the oceans twice a day", 2),
    ):
        top = search.get_search_results_sync(sentence, top=1).results[0]
        assert top.link == f"{tmp_path / 'ocean.pdf'}#page={page}"
        assert top.metadata["page"] == page


@pytest.mark.parametrize("pdf", REAL_PDFS, ids=lambda p: p.name)
def test_real_pdfs_give_clean_passages_on_their_pages(pdf: Path, tmp_path: Path) -> None:
    if not pdf.exists():
        pytest.skip(f"{pdf} is not installed")
    shutil.copy(pdf, tmp_path / pdf.name)
    search = LocalTextSearch()
    search.index_path(tmp_path)
    docs = list(read_path(tmp_path))
    text = "\n".join(d["text"] for d in docs)
    assert "\ufffe" not in text and "\x00" not in text and "\r" not in text
    assert not any("\ufb00" <= c <= "\ufb06" for c in text)
    # every passage of a PDF links to a page and says which
    assert all(d["link"].split("#")[1] == f"page={d['metadata']['page']}" for d in docs)
    # a sentence of the 5th document is found on its page
    probe = docs[len(docs) // 2]
    sentence = max(probe["text"].split("\n"), key=len)
    hit = search.get_search_results_sync(sentence, top=3).results
    assert probe["link"] in [h.link for h in hit]


def test_real_pdf_outline_and_headers(tmp_path: Path) -> None:
    pdf = REAL_PDFS[0]
    if not pdf.exists():
        pytest.skip(f"{pdf} is not installed")
    shutil.copy(pdf, tmp_path / pdf.name)
    docs = list(read_path(tmp_path))
    # a page is one document; the headings it holds are all named
    meta = [d["metadata"] for d in docs]
    sections = [name for m in meta for name in [m.get("section"), *m.get("sections", [])]]
    assert "2.2 Naming" in sections  # the outline says "Naming"; the page shows its number
    assert not any(d["text"].startswith("Chapter ") for d in docs)  # running headers dropped


def test_docx_headings_lists_tables_and_no_headers_footers_comments(tmp_path: Path) -> None:
    make_docx(tmp_path / "guide.docx")
    docs = _by_link(tmp_path)
    link = str(tmp_path / "guide.docx")
    assert list(docs) == [link, f"{link}#birds-of-prey", f"{link}#birds-of-prey-1"]
    assert docs[link]["text"] == "Owls hunt at night and sleep through the day."
    assert docs[link]["title"] == "Field guide"
    assert docs[f"{link}#birds-of-prey"]["text"] == (
        "Falcons dive faster than any other animal.\n\n- Kestrel\n- Merlin\n\n"
        "Bird; Wingspan; Habitat\nOsprey; 160 cm; Coasts\nHarrier; 110 cm; Marshes"
    )
    every = json.dumps(list(docs.values()))
    assert "NEVER INDEXED" not in every


def test_pptx_a_section_per_slide_with_titles_and_notes(tmp_path: Path) -> None:
    make_pptx(tmp_path / "deck.pptx")
    docs = list(read_path(tmp_path))
    link = str(tmp_path / "deck.pptx")
    assert [(d["link"], d["metadata"].get("section"), d["metadata"]["slide"]) for d in docs] == [
        (f"{link}#slide=1", "Launch plan", 1),
        (f"{link}#slide=2", "Slide 2", 2),
    ]  # slide 3 has a title and nothing else: no text, no passage
    assert docs[0]["text"] == (
        "Ship the offline reader\nIndex every folder\n\nRemind everyone of the freeze date."
    )
    assert docs[1]["text"] == "Budget approved by the board\n\nItem; Cost\nServers; 4000"


def test_xlsx_a_section_per_sheet_with_header_value_rows(tmp_path: Path) -> None:
    make_xlsx(tmp_path / "stock.xlsx")
    docs = list(read_path(tmp_path))
    link = str(tmp_path / "stock.xlsx")
    assert [(d["link"], d["metadata"]["sheet"]) for d in docs] == [
        (f"{link}#sheet=Stock%20levels", "Stock levels"),
        (f"{link}#sheet=Notes%20&%20remarks", "Notes & remarks"),
    ]
    assert docs[0]["text"] == (
        "Item: Bolts; Count: 1200; Checked: 2026-03-01\nItem: Washers; Checked: 2026-03-02 09:30:00"
    )
    assert docs[1]["text"] == "Remark: Counts exclude returned goods"


def test_xlsx_first_row_of_numbers_is_data_not_a_header(tmp_path: Path) -> None:
    # openpyxl's conditional-formatting.xlsx starts with a row of numbers: read as "1: 10"
    # ("header" 1) until the first row had to be text to be a header
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Grid"
    for r in range(1, 4):
        sheet.append([r, r * 10, "x"])
    book.save(tmp_path / "grid.xlsx")
    (doc,) = read_path(tmp_path / "grid.xlsx")
    assert doc["text"] == "A: 1; B: 10; C: x\nA: 2; B: 20; C: x\nA: 3; B: 30; C: x"


def test_xlsx_sheet_stays_one_section_over_many_passages(tmp_path: Path) -> None:
    make_xlsx(tmp_path / "big.xlsx", rows=400)
    search = LocalTextSearch()
    search.index_path(tmp_path)
    hit = search.get_search_results_sync("Part 377", top=1).results[0]
    assert hit.link.endswith("#sheet=Stock%20levels")
    assert hit.metadata == {"sheet": "Stock levels"}
    assert "Item: Part 377; Count: 377" in hit.text


def test_csv_and_tsv_rows_with_rfc7111_links(tmp_path: Path) -> None:
    rows = ["city,country,note"] + [f'City {n},Land {n},"quoted, {n}"' for n in range(1, 200)]
    (tmp_path / "cities.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "t.tsv").write_text("name\tvalue\nalpha\t1\nbeta\t\n")
    docs = list(read_path(tmp_path, passage_chars=500))
    csv_docs = [d for d in docs if d["link"].startswith(str(tmp_path / "cities.csv"))]
    assert csv_docs[0]["link"].endswith("#row=2") and csv_docs[0]["metadata"]["row"] == 2
    assert csv_docs[0]["text"].split("\n")[0] == "city: City 1; country: Land 1; note: quoted, 1"
    for doc in csv_docs:  # the row a link names is the passage's first row (header = row 1)
        first = doc["text"].split("\n")[0]
        assert first.startswith(f"city: City {doc['metadata']['row'] - 1};")
    assert len(csv_docs) > 3
    tsv = [d for d in docs if "t.tsv" in d["link"]]
    assert tsv == [
        {
            "id": "t.tsv#row=2",
            "title": "t",
            "text": "name: alpha; value: 1\nname: beta",
            "link": f"{tmp_path / 't.tsv'}#row=2",
            "metadata": {"path": "t.tsv", "row": 2, "section_index": 0, "passage_lines": ["1"]},
        }
    ]


def test_csv_semicolons_are_sniffed(tmp_path: Path) -> None:
    (tmp_path / "eu.csv").write_text("name;price\nbread;2,50\nmilk;1,10\n")
    (doc,) = read_path(tmp_path)
    assert doc["text"] == "name: bread; price: 2,50\nname: milk; price: 1,10"


def _notebook() -> dict:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "cells": [
            {"cell_type": "markdown", "source": ["# Tide model\n", "\n", "Fit the *tides*."]},
            {
                "cell_type": "code",
                "source": "def height(t):\n    return 2 * t  # ``` inside\n",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["fitted\n", "ok\n"]},
                    {
                        "output_type": "execute_result",
                        "data": {"text/plain": "42", "image/png": "iVBOR"},
                    },
                    {"output_type": "error", "ename": "E", "traceback": ["\x1b[31mboom"]},
                    {"output_type": "stream", "text": "x" * 5000},
                ],
            },
            {"cell_type": "markdown", "source": "## Results\n\nThe fit is **good**."},
        ],
    }


def test_notebook_markdown_cells_code_exact_outputs_bounded(tmp_path: Path) -> None:
    (tmp_path / "tides.ipynb").write_text(json.dumps(_notebook()))
    docs = list(read_path(tmp_path))
    link = str(tmp_path / "tides.ipynb")
    # the top of the notebook is several passages (a long output): the first links the file,
    # the rest the title heading (a notebook has no lines to link), no two with one id
    assert docs[0]["link"] == link and docs[-1]["link"] == f"{link}#results"
    assert {d["link"] for d in docs[1:-1]} == {f"{link}#tide-model"}
    assert len({d["id"] for d in docs}) == len(docs)
    text = "\n\n".join(d["text"] for d in docs[:-1])
    assert docs[0]["title"] == "Tide model"
    assert "Fit the tides." in text
    assert "def height(t):\n    return 2 * t  # ``` inside" in text  # exactly
    assert "fitted\nok" in text and "42" in text
    assert "iVBOR" not in text and "boom" not in text
    assert text.count("x") == 2000  # cut to the bound (and over two passages)
    assert "(3000 more characters of output)" in text
    assert docs[-1]["text"] == "The fit is good."


def test_notebook_raw_cells_show_what_their_format_shows(tmp_path: Path) -> None:
    # nbconvert passes a raw cell through to the outputs of its format (no format: to all of
    # them, as typed); nbsphinx reads a reStructuredText one as part of the page
    def raw(source: str, mimetype: str | None = None) -> dict:
        return {
            "cell_type": "raw",
            "metadata": {"raw_mimetype": mimetype} if mimetype else {},
            "source": source,
        }

    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "source": "# Formats"},
            raw("Kept *as typed*, [x](y)\n\n    indented `tick` \\"),
            raw(
                "A **reST** cell: :func:`tide_height`.\n\n.. note:: Ebb ``first``.",
                "text/restructuredtext",
            ),
            raw("A **Markdown** cell, [linked](https://example.org).", "text/markdown"),
            raw("<p>&ldquo;An <b>HTML</b> <i>cell</i>&rdquo;</p>", "text/html"),
            raw("\\textbf{LaTeX only}", "text/latex"),
            raw("print('never shown')", "text/x-python"),
        ],
    }
    (tmp_path / "raw.ipynb").write_text(json.dumps(notebook))
    (doc,) = read_path(tmp_path)
    assert doc["text"].split("\n\n") == [
        "Kept *as typed*, [x](y)",
        "indented `tick` \\",
        "A reST cell: tide_height().",
        "Note:\nEbb first.",
        "A Markdown cell, linked.",
        "\u201cAn HTML cell\u201d",
    ]


def test_real_notebook(tmp_path: Path) -> None:
    import chromadb

    found = sorted(Path(chromadb.__file__).parent.rglob("*.ipynb"))
    if not found:
        pytest.skip("no notebook ships with chromadb")
    shutil.copy(found[0], tmp_path / found[0].name)
    docs = list(read_path(tmp_path))
    assert len(docs) > 2
    assert any("#" in d["link"] for d in docs)  # headings gave sections
    assert all("#L" not in d["link"] for d in docs)
    assert not any("\x1b" in d["text"] or "image/png" in d["text"] for d in docs)


def test_every_default_extension_is_read(tmp_path: Path) -> None:
    from textsearch.documents import DEFAULT_EXTENSIONS

    assert {".pdf", ".docx", ".pptx", ".xlsx", ".csv", ".tsv", ".ipynb"} <= set(DEFAULT_EXTENSIONS)
    _pdf(tmp_path / "a.pdf")
    make_docx(tmp_path / "b.docx")
    make_pptx(tmp_path / "c.pptx")
    make_xlsx(tmp_path / "d.xlsx")
    (tmp_path / "e.csv").write_text("a,b\n1,2\n")
    (tmp_path / "f.ipynb").write_text(json.dumps(_notebook()))
    report = IndexReport()
    docs = list(read_path(tmp_path, report=report))
    assert report.added == 6 and not report.failed and not report.skipped
    assert {Path(d["metadata"]["path"]).suffix for d in docs} == {
        ".pdf",
        ".docx",
        ".pptx",
        ".xlsx",
        ".csv",
        ".ipynb",
    }


REAL_OFFICE = [
    Path("/work/.mirror/python-openxml+python-docx/repo"),
    Path("/work/.mirror/scanny+python-pptx/repo"),
]


def test_real_office_files_from_the_libraries_own_tests(tmp_path: Path) -> None:
    """Every DOCX and PPTX of python-docx's and python-pptx's test files is read or reported,
    under -W error (the libraries' warnings never stop indexing). Skipped when the mirrors of
    those repositories are absent."""
    import subprocess

    copied = 0
    for repo in REAL_OFFICE:
        if not repo.exists():
            continue
        names = subprocess.run(
            ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for name in names:
            if name.endswith((".docx", ".pptx")):
                body = subprocess.run(
                    ["git", "-C", str(repo), "show", f"HEAD:{name}"],
                    capture_output=True,
                    check=True,
                ).stdout
                (tmp_path / name.replace("/", "_")).write_bytes(body)
                copied += 1
    if not copied:
        pytest.skip("the python-docx and python-pptx mirrors are absent")
    report = IndexReport()
    docs = list(read_path(tmp_path, report=report))
    assert report.added + len(report.failed) == copied and not report.skipped
    assert report.added >= copied - 3
    text = "\n".join(d["text"] for d in docs)
    assert not any(ord(c) < 32 and c not in "\n\t" for c in text)


def test_openpyxl_warnings_never_stop_indexing(tmp_path: Path) -> None:
    import subprocess

    repo = Path("/work/.mirror/theorchard+openpyxl/repo/.git")
    name = "openpyxl/formatting/tests/data/conditional-formatting.xlsx"
    if not repo.exists():
        pytest.skip("the openpyxl mirror is absent")
    body = subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"HEAD:{name}"], capture_output=True, check=True
    ).stdout
    (tmp_path / "cf.xlsx").write_bytes(body)
    report = IndexReport()
    docs = list(read_path(tmp_path, report=report))  # openpyxl warns about its extensions
    assert report.added == 1 and docs[0]["metadata"]["sheet"] == "Sheet1"


def test_formats_force_a_new_reading_by_suffix(tmp_path: Path) -> None:
    (tmp_path / "prices.dat").write_text("item,price\ntea,3\n")
    (tmp_path / "deck.bin").write_bytes(make_pptx(tmp_path / "x.pptx").read_bytes())
    (tmp_path / "x.pptx").unlink()
    docs = list(
        read_path(tmp_path, extensions=[".dat", ".bin"], formats={".dat": "csv", ".bin": "pptx"})
    )
    links = {d["link"].rsplit("/", 1)[1] for d in docs}
    assert {"prices.dat#row=2", "deck.bin#slide=1", "deck.bin#slide=2"} == links
    from textsearch.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="a format among"):
        list(read_path(tmp_path, formats={".dat": "excel"}))


def test_pdf_page_of_huge_text_and_many_rules_makes_no_lookups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each rule's character lookup scans the page's characters: a crafted page of 800,000
    # characters and 999 rules took 3.9 s (its text alone 0.24 s). Over _MAX_RULE_WORK (rules
    # times characters) the page is left alone; under it the same rules are read back.
    from textsearch.documents import _pdf
    from textsearch.documents._formats import split_file

    calls = _pdf._calls()
    looked: list[object] = []
    lookup = calls.char_at
    monkeypatch.setattr(calls, "char_at", lambda *args: looked.append(args) or lookup(*args))
    drawn = ["a_" * 200 + "b"]
    for lines, read_back in ((200, False), (10, True)):  # 20,000+ / 1,000+ characters
        looked.clear()
        data = make_pdf([["x" * 100] * lines], drawn=drawn, producer="pdfTeX-1.40.24")
        text = "\n".join(p.text for p in split_file(data, ".pdf")[1])
        assert ("a_a_a" in text) is read_back and bool(looked) is read_back


def test_pdf_page_of_many_short_rules_is_a_drawing_not_underscores() -> None:
    # Hatching or a chart of short strokes: more rules than any page of text has underscores
    # is left alone (each would cost a character lookup).
    from textsearch.documents._formats import split_file
    from textsearch.documents._pdf import _MAX_RULES

    drawn = ["a_" * (_MAX_RULES + 1) + "b"]
    data = make_pdf([["A chart"]], drawn=drawn, producer="pdfTeX-1.40.24")
    text = "\n".join(p.text for p in split_file(data, ".pdf")[1])
    assert "a_a" not in text and "A chart" in text


def test_pdf_text_range_is_empty_when_pdfium_reads_nothing() -> None:
    # FPDFText_GetText returns 0 when it read nothing: the buffer's NULs are no text.
    from textsearch.documents import _pdf

    class NothingRead:
        def count_chars(self, textpage: int) -> int:
            return 3

        def text_index(self, textpage: int, index: int) -> int:
            return index

        def get_text(self, textpage: int, start: int, count: int, buffer: object) -> int:
            return 0

    assert _pdf._text_range(NothingRead(), 1) == ""  # type: ignore[arg-type]
