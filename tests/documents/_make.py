"""Test files made at test time: PDFs written by hand (pages of text, an outline, an
/Encrypt dictionary), Office files written by python-docx, python-pptx and openpyxl."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from pathlib import Path

# An outline entry: (title, 0-based page index, children)
Mark = tuple[str, int, "list[Mark]"]


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def make_pdf(
    pages: Sequence[Sequence[str]],
    *,
    outline: Sequence[Mark] = (),
    title: str | None = None,
    encrypted: bool = False,
    drawn: Sequence[str] = (),
    producer: str | None = None,
) -> bytes:
    """A PDF whose pages hold these lines of text (Helvetica; "\\x01" draws the fi ligature
    glyph, "\\x02" the fl one). ``drawn``: lines added under the first page's text, in Courier,
    each ``_`` drawn as TeX draws one outside its typewriter font: a short rule on the baseline,
    no glyph; ``producer``: the Producer of the document information."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_id = add(b"")
    font = add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
        b"/BaseEncoding /WinAnsiEncoding /Differences [1 /fi /fl] >> >>"
    )
    courier = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>")
    page_ids = []
    for number, lines in enumerate(pages):
        ops = [b"BT /F1 11 Tf 14 TL 72 740 Td"]
        for line in lines:
            ops.append(b"(" + _escape(line) + b") Tj T*")
        ops.append(b"ET")
        for row, line in enumerate(drawn if number == 0 else ()):
            x, y = 72.0, 300.0 - 14 * row
            for index, piece in enumerate(line.split("_")):
                if index:  # the underscore: a rule 0.9 pt high across most of a cell
                    ops.append(b"%.2f %.2f 4.80 0.90 re f" % (x + 0.6, y - 0.6))
                    x += 6.0
                ops.append(b"BT /F2 10 Tf %.2f %.2f Td (%s) Tj ET" % (x, y, _escape(piece)))
                x += 6.0 * len(piece)  # Courier: every glyph 0.6 em wide
        stream = b"\n".join(ops)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        page_ids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>"
                % (pages_id, content, font, courier)
            )
        )
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    outlines_ref = b""
    if outline:
        root = add(b"")

        def build(marks: Sequence[Mark], parent: int) -> tuple[int, int, int]:
            ids = [add(b"") for _ in marks]
            total = 0
            for i, (name, page, children) in enumerate(marks):
                fields = [
                    b"/Title (" + _escape(name) + b")",
                    b"/Parent %d 0 R" % parent,
                    b"/Dest [%d 0 R /XYZ 0 792 0]" % page_ids[page],
                ]
                if i:
                    fields.append(b"/Prev %d 0 R" % ids[i - 1])
                if i + 1 < len(ids):
                    fields.append(b"/Next %d 0 R" % ids[i + 1])
                if children:
                    first, last, count = build(children, ids[i])
                    fields.append(b"/First %d 0 R /Last %d 0 R /Count %d" % (first, last, count))
                    total += count
                objects[ids[i] - 1] = b"<< " + b" ".join(fields) + b" >>"
            return ids[0], ids[-1], total + len(ids)

        first, last, count = build(outline, root)
        objects[root - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (
            first,
            last,
            count,
        )
        outlines_ref = b" /Outlines %d 0 R /PageMode /UseOutlines" % root
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R%s >>" % (pages_id, outlines_ref)
    fields = [b"/Title (" + _escape(title) + b")"] if title else []
    if producer:
        fields.append(b"/Producer (" + _escape(producer) + b")")
    info = add(b"<< " + b" ".join(fields) + b" >>") if fields else None
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    trailer = b"/Size %d /Root %d 0 R" % (len(objects) + 1, catalog)
    if info:
        trailer += b" /Info %d 0 R" % info
    if encrypted:
        # The standard handler with a user password: /U matches no password, so no reader
        # can open the file without one.
        trailer += (
            b" /Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /P -44"
            b" /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> >>"
            b" /ID [<" + b"33" * 16 + b"> <" + b"33" * 16 + b">]"
        )
    out.write(b"trailer\n<< " + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = "Field guide"
    document.add_heading("Field guide", 0)
    document.add_paragraph("Owls hunt at night and sleep through the day.")
    document.add_heading("Birds of prey", 1)
    document.add_paragraph("Falcons dive faster than any other animal.")
    document.add_paragraph("Kestrel", style="List Bullet")
    document.add_paragraph("Merlin", style="List Bullet")
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate(
        [
            ("Bird", "Wingspan", "Habitat"),
            ("Osprey", "160 cm", "Coasts"),
            ("Harrier", "110 cm", "Marshes"),
        ]
    ):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_heading("Birds of prey", 2)  # a repeated heading: a numbered anchor
    document.add_paragraph("Eagles nest on cliffs.")
    document.sections[0].header.paragraphs[0].text = "HEADER TEXT NEVER INDEXED"
    document.sections[0].footer.paragraphs[0].text = "FOOTER TEXT NEVER INDEXED"
    paragraph = document.paragraphs[1]
    document.add_comment(paragraph.runs, text="COMMENT TEXT NEVER INDEXED", author="t")
    document.save(path)
    return path


def make_pptx(path: Path) -> Path:
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Launch plan"
    slide.placeholders[1].text = "Ship the offline reader\nIndex every folder"
    slide.notes_slide.notes_text_frame.text = "Remind everyone of the freeze date."
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank: no title
    box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1))
    box.text_frame.text = "Budget approved by the board"
    frame = slide.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(4), Inches(1))
    for r, row in enumerate([("Item", "Cost"), ("Servers", "4000")]):
        for c, value in enumerate(row):
            frame.table.cell(r, c).text = value
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Risks"
    deck.save(path)
    return path


def make_xlsx(path: Path, rows: int = 3) -> Path:
    import datetime

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock levels"
    sheet.append(["Item", "Count", "Checked"])
    sheet.append(["Bolts", 1200, datetime.datetime(2026, 3, 1)])
    sheet.append(["Washers", None, datetime.datetime(2026, 3, 2, 9, 30)])
    for n in range(rows - 3):
        sheet.append([f"Part {n}", n, None])
    other = book.create_sheet("Notes & remarks")
    other.append(["Remark"])
    other.append(["Counts exclude returned goods"])
    book.save(path)
    return path


def zip_with(members: dict[str, bytes], *, declared: dict[str, int] | None = None) -> bytes:
    """A zip archive of these members (deflated); ``declared`` rewrites a member's
    uncompressed size in both headers (a directory that lies)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    data = bytearray(out.getvalue())
    for name, size in (declared or {}).items():
        encoded = name.encode()
        for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
            start = 0
            while (found := data.find(signature, start)) != -1:
                name_at = found + (30 if signature == b"PK\x03\x04" else 46)
                if data[name_at : name_at + len(encoded)] == encoded:
                    data[found + offset : found + offset + 4] = size.to_bytes(4, "little")
                start = found + 4
    return bytes(data)
