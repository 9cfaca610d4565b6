"""What reading PDF, DOCX, PPTX and XLSX files costs, against their libraries' own extraction.

    python benchmarks/bench_documents.py                 # Debian's PDF manuals + made files
    python benchmarks/bench_documents.py --pdf FILE ...  # other PDFs
    python benchmarks/bench_documents.py --rounds 7
    python benchmarks/bench_documents.py --underscores [--pdf FILE ...]  # that pass's cost

For each file, CPU time of ``split_file`` (what ``index_path`` and ``read_path`` run: the
reader, cleaning, sections and passages) against the library alone extracting the same text
(pypdfium2: every page's text range; python-docx: every paragraph's and table cell's text;
python-pptx: every slide's title, every shape's text frame and the notes; openpyxl: every
row's values in read-only mode). Rounds interleave the two; the median is printed, and the ratio.

``--memory`` reads a 1,000-page PDF (made here) and a 100-page one in child processes and
prints each one's peak resident memory: pages are read one at a time, so the peak should not
grow with the page count beyond the text itself.

CPU time, not wall time: on a shared machine wall time measures the neighbours.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.documents._make import make_pdf  # noqa: E402
from textsearch.documents._formats import split_file  # noqa: E402

DEBIAN_PDFS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]


def _pdf_library(data: bytes) -> None:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    for index in range(len(document)):
        page = document[index]
        textpage = page.get_textpage()
        textpage.get_text_range()
        textpage.close()
        page.close()
    document.close()


def _docx_library(data: bytes) -> None:
    import docx

    document = docx.Document(io.BytesIO(data))
    for paragraph in document.paragraphs:
        paragraph.text  # noqa: B018
    for table in document.tables:
        for row in table.rows:
            for cell in row.cells:
                cell.text  # noqa: B018


def _pptx_library(data: bytes) -> None:
    import pptx

    for slide in pptx.Presentation(io.BytesIO(data)).slides:
        slide.shapes.title  # noqa: B018  (a slide's section is named by its title)
        for shape in slide.shapes:
            if shape.has_text_frame:
                shape.text_frame.text  # noqa: B018
        if slide.has_notes_slide:
            slide.notes_slide.notes_text_frame.text  # noqa: B018


def _xlsx_library(data: bytes) -> None:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    for sheet in book.worksheets:
        for _ in sheet.iter_rows(values_only=True):
            pass
    book.close()


def _made_office(folder: Path) -> dict[str, Path]:
    import docx
    import openpyxl
    import pptx

    words = "the tide rises and falls twice a day along the coast of the northern sea".split()
    document = docx.Document()
    for n in range(300):
        document.add_heading(f"Section {n}", 1 + n % 3)
        for m in range(5):
            document.add_paragraph(" ".join(words[(n + m) % 7 :] + words[: (n + m) % 7]))
        if n % 10 == 0:
            table = document.add_table(rows=8, cols=4)
            for row in table.rows:
                for cell in row.cells:
                    cell.text = words[n % 15]
    document.save(folder / "made.docx")
    deck = pptx.Presentation()
    for n in range(150):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Slide title {n}"
        slide.placeholders[1].text = "\n".join(" ".join(words[m:]) for m in range(5))
        slide.notes_slide.notes_text_frame.text = " ".join(words)
    deck.save(folder / "made.pptx")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Item", "Count", "Place", "Remark"])
    for n in range(20_000):
        sheet.append([f"Item {n}", n, words[n % 15], " ".join(words[: n % 10])])
    book.save(folder / "made.xlsx")
    return {kind: folder / f"made.{kind}" for kind in ("docx", "pptx", "xlsx")}


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _compare(path: Path, library: Callable[[bytes], None], rounds: int) -> None:
    data = path.read_bytes()
    if path.suffix != ".pdf":
        from textsearch.documents._office import check_zip

        guard = statistics.median(_cpu(lambda: check_zip(data, "x")) for _ in range(rounds))
        print(f"{path.name:34} zip and XML checks alone: {guard * 1000:.1f} ms")
    ours: list[float] = []
    theirs: list[float] = []
    split_file(data, path.suffix)  # imports and first-use compilation out of the clock
    library(data)
    for _ in range(rounds):
        ours.append(_cpu(lambda: split_file(data, path.suffix)))
        theirs.append(_cpu(lambda: library(data)))
    a, b = statistics.median(ours), statistics.median(theirs)
    _, passages = split_file(data, path.suffix)
    print(
        f"{path.name:34} {len(passages):6} passages  ours {a * 1000:8.1f} ms  "
        f"library {b * 1000:8.1f} ms  ratio {a / b:5.2f}"
    )


def _underscores(path: Path, rounds: int) -> None:
    """The cost of reading back the underscores a TeX PDF draws as rules: the reader with the
    pass and without it (as for a PDF that TeX did not make), alternating in one process."""
    from textsearch.documents import _pdf

    data = path.read_bytes()
    tex = _pdf._typeset_by_tex
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for _ in range(rounds):
            for on in (False, True):
                _pdf._typeset_by_tex = tex if on else (lambda document: False)
                split_file(data, ".pdf")
                times[on].append(_cpu(lambda: split_file(data, ".pdf")))
    finally:
        _pdf._typeset_by_tex = tex
    ratios = sorted(on / off for on, off in zip(times[True], times[False], strict=True))
    off, on = (statistics.median(times[key]) * 1000 for key in (False, True))
    print(
        f"{path.name:34} underscores pass: without {off:.1f} ms, with {on:.1f} ms, "
        f"median of rounds' ratios {ratios[len(ratios) // 2]:.2f}"
    )


_CHILD = """
import resource, sys
sys.path.insert(0, {root!r})
from textsearch.documents._formats import split_file
data = open({path!r}, "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
title, passages = split_file(data, ".pdf")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
text = sum(len(p.text) for p in passages)
print(len(passages), text, before, after)
"""


def _memory(folder: Path) -> None:
    line = "A line of text on a page of a long made-up manual, with some words to read."
    for pages in (100, 1000):
        path = folder / f"long{pages}.pdf"
        path.write_bytes(make_pdf([[f"Page {n}"] + [line] * 40 for n in range(pages)]))
        out = subprocess.run(
            [sys.executable, "-c", _CHILD.format(root=str(ROOT), path=str(path))],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        count, text, before, after = (int(x) for x in out)
        print(
            f"{pages:5} pages ({path.stat().st_size // 1024} KB): {count} passages, "
            f"{text // 1024} KB of text; peak RSS {before // 1024} MB before reading, "
            f"{after // 1024} MB after (+{(after - before) // 1024} MB)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", nargs="*", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="only the 1,000-page memory run")
    parser.add_argument(
        "--underscores", action="store_true", help="only: the PDFs with and without that pass"
    )
    args = parser.parse_args()
    if args.underscores:
        for pdf in args.pdf or [p for p in DEBIAN_PDFS if p.exists()]:
            _underscores(pdf, max(args.rounds, 9))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.memory:
            for pdf in args.pdf or [p for p in DEBIAN_PDFS if p.exists()]:
                _compare(pdf, _pdf_library, args.rounds)
            made = _made_office(folder)
            _compare(made["docx"], _docx_library, args.rounds)
            _compare(made["pptx"], _pptx_library, args.rounds)
            _compare(made["xlsx"], _xlsx_library, args.rounds)
        _memory(folder)


if __name__ == "__main__":
    main()
