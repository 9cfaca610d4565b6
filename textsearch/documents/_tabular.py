"""Tables read as text: CSV/TSV files (standard library), and the rows of every table.

A row is read as ``header: value; header: value`` (empty cells left out), so a passage of
rows is self-explaining to a model wherever it is cut. Rows are packed into passages of at
most the passage size, a row never split unless it is longer than a passage alone. A CSV
passage links to its first row as RFC 7111 counts rows: from 1, the header row included
(``#row=2`` is the first row of data).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from textsearch.documents._common import NotRead
from textsearch.documents._passages import Passage

__all__ = ["MAX_ROWS", "pack_rows", "read_delimited", "row_text"]

MAX_ROWS = 2_000_000
_SNIFF = 16_384
_DELIMITERS = ",;\t|"


def row_text(header: Sequence[str], values: Sequence[str]) -> str:
    """``header: value; header: value`` of the non-empty values (extra columns numbered)."""
    parts = []
    for index, value in enumerate(values):
        if not value:
            continue
        name = header[index] if index < len(header) and header[index] else f"column {index + 1}"
        parts.append(f"{name}: {value}")
    return "; ".join(parts)


def pack_rows(rows: Iterable[tuple[int, str]], limit: int) -> list[tuple[int, str]]:
    """``(first row number, text)`` of passages of whole rows, one row per line."""
    from textsearch.documents._split import _cut, group_pieces

    pieces = (
        (number, piece)
        for number, text in rows
        if text
        for piece in ([text] if len(text) <= limit else _cut(text, limit))
    )
    return [(first, "\n".join(group)) for first, group in group_pieces(pieces, limit, 1)]


def read_delimited(
    text: str | None, delimiter: str | None, limit: int, data: bytes = b""
) -> tuple[str | None, list[Passage]]:
    """``(title, passages)`` of a CSV (``delimiter=None``: sniffed) or TSV file.

    Raises:
        NotRead: Malformed (a field over the ``csv`` module's size bound, say) or too many rows.
    """
    if text is None:
        text = data.decode("utf-8-sig", errors="replace")
    elif text.startswith("\ufeff"):
        text = text[1:]
    if delimiter is None:
        delimiter = _sniffed(text[:_SNIFF])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[tuple[int, str]] = []
    try:
        for number, record in enumerate(reader, 1):
            if number > MAX_ROWS:
                raise NotRead(f"over a limit: more than {MAX_ROWS} rows")
            values = [" ".join(value.split()) for value in record]
            if header is None:
                header = values
                continue
            rows.append((number, row_text(header, values)))
    except csv.Error as exc:
        raise NotRead(f"malformed CSV near row {reader.line_num}: {exc}") from None
    if header is not None and not rows:  # a header alone: it is the content
        rows.append((1, "; ".join(h for h in header if h)))
    passages = [Passage(None, f"row={first}", 1, body) for first, body in pack_rows(rows, limit)]
    return None, passages or [Passage(None, None, 1, "")]


def _sniffed(sample: str) -> str:
    """The delimiter of a ``.csv`` file: a comma unless the sample clearly uses another."""
    cut = sample.rfind("\n")
    try:
        return csv.Sniffer().sniff(sample[:cut] if cut > 0 else sample, _DELIMITERS).delimiter
    except csv.Error:
        return ","
