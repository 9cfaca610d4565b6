"""Bounds on what reaches docutils, so that reading a crafted file costs time linear in its size.

Three constructs cost docutils more than linear time: a line over 10,000 characters (its inline
parse; docutils refuses the whole document), a table with many columns (its table parser
is quadratic in the width) and blocks nested hundreds deep (each level reads its indented
block again: cost ~ depth x size). A line indented past ``MAX_INDENT`` columns is handed to
docutils at that indentation, so nesting stops deepening there (what lies deeper reads as
siblings at the last level); no file written for people is indented that far.

Long lines and wide tables are handed to docutils as a placeholder word at the same
indentation, so the document keeps its shape and its line numbers, and the reader puts
the words back into the text it made: the line itself (code keeps it exactly), or for a
table row its cells joined with ``"; "``; a table's border lines go. A wide table then reads
as the rows of a narrow one would (a simple table's rows cut at its border's columns, their
roles and literals as their words), and a long line is kept, as the Markdown reader keeps it.
"""

from __future__ import annotations

import re

from textsearch.documents._references import role_text

__all__ = ["LINE_LIMIT", "Placeholders", "guard_lines"]

LINE_LIMIT = 10_000  # docutils' own bound on a line's length
MAX_COLUMNS = 64  # columns of a table docutils parses; wider ones are read as rows of words
MAX_CELLS = 5_000  # cells (columns x lines) of one table docutils parses
MAX_INDENT = 100  # columns of indentation docutils sees; deeper lines are set at this one
_TOO_DEEP = " " * (MAX_INDENT + 1)

_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use characters: no markup to docutils
_PLACEHOLDER = re.compile(f"{_OPEN}([0-9]{{1,9}}){_CLOSE}")
_GRID_BORDER = re.compile(r"\+(?:[-=]+\+)+")
_SIMPLE_BORDER = re.compile(r"=+(?: +=+)+")
_SIMPLE_RULE = re.compile(r"[-=]+(?: +[-=]+)*")
_COLUMN = re.compile(r"=+")
# ``:role:`text```, ````literal````, ```title``` and ```ref`_``, left to right
_CELL_MARKUP = re.compile(r"(?::([A-Za-z][\w:+.-]*):)?(``?)([^`]+)\2_{0,2}")


class Placeholders:
    """The lines taken out of docutils' view: placeholder number to (prose text, line)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def add(self, indent: str, prose: str, line: str) -> str:
        self.lines.append((prose, line))
        return f"{indent}{_OPEN}{len(self.lines) - 1}{_CLOSE}"

    def restore(self, text: str, *, code: bool) -> str:
        """``text`` with each placeholder put back: the line as written in code, else its words."""
        if not self.lines or _OPEN not in text:
            return text
        lines = self.lines

        def back(found: re.Match[str]) -> str:
            number = int(found.group(1))
            if number >= len(lines):
                return found.group(0)
            prose, line = lines[number]
            return line if code else prose

        return _PLACEHOLDER.sub(back, text)


def guard_lines(lines: list[str]) -> tuple[list[str], Placeholders]:
    """``lines`` with over-long lines and over-wide (or over-large) tables as placeholders."""
    placeholders = Placeholders()
    if any(line.startswith(_TOO_DEEP) for line in lines):
        lines = [_flattened(line) if line.startswith(_TOO_DEEP) else line for line in lines]
    if not any(len(line) > LINE_LIMIT or line.lstrip(" ")[:1] in ("=", "+") for line in lines):
        return lines, placeholders
    out = list(lines)
    index = 0
    count = len(lines)
    while index < count:
        line = lines[index]
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        if _GRID_BORDER.fullmatch(body):
            end = _grid_end(lines, index, indent)
            if _too_big(body.count("+") - 1, end - index):
                for number in range(index, end):
                    row = lines[number][len(indent) :]
                    out[number] = placeholders.add(indent, _grid_row(row), row)
                index = end
                continue
        elif _SIMPLE_BORDER.fullmatch(body):
            end = _simple_end(lines, index, indent)
            if _too_big(len(body.split()), end - index):
                starts = [column.start() for column in _COLUMN.finditer(body)]
                for number in range(index, end):
                    row = lines[number][len(indent) :]
                    if _SIMPLE_RULE.fullmatch(row):
                        out[number] = placeholders.add(indent, "", row)
                    elif row.strip():
                        out[number] = placeholders.add(indent, _simple_row(row, starts), row)
                index = end
                continue
        if len(line) > LINE_LIMIT:
            out[index] = placeholders.add(indent, body.strip(), body)
        index += 1
    return out, placeholders


def _flattened(line: str) -> str:
    """``line`` indented ``MAX_INDENT`` columns (the lines are tab-expanded already)."""
    return _TOO_DEEP[:MAX_INDENT] + line.lstrip(" ")


def _too_big(columns: int, lines: int) -> bool:
    return columns > MAX_COLUMNS or columns * lines > MAX_CELLS


def _grid_end(lines: list[str], index: int, indent: str) -> int:
    """Where the grid table starting at line ``index`` ends (its lines start with + or |)."""
    end = index + 1
    column = len(indent)
    while (
        end < len(lines)
        and lines[end][:column] == indent
        and lines[end][column : column + 1] in ("+", "|")
    ):
        end += 1
    return end


def _simple_end(lines: list[str], index: int, indent: str) -> int:
    """Where the simple table starting at line ``index`` ends: after the border line that
    a blank line (or the end) follows."""
    end = index + 1
    while end < len(lines):
        row = lines[end]
        if row.startswith(indent) and _SIMPLE_RULE.fullmatch(row[len(indent) :]):
            if end + 1 >= len(lines) or not lines[end + 1].strip():
                return end + 1
        elif not row.strip() and end + 1 < len(lines) and not lines[end + 1].strip():
            return end  # two blank lines: not a table after all
        end += 1
    return end


def _grid_row(row: str) -> str:
    """The words of a grid table's line: its cells joined with "; ", a border nothing."""
    if row.startswith("+"):
        return ""
    return _row_words(row.strip().strip("|").split("|"))


def _simple_row(row: str, starts: list[int]) -> str:
    """The words of a simple table's line, cut at its columns (``starts``: where each run
    of ``=`` of its border begins), joined with "; "."""
    cuts = starts if row.isascii() else _indexes_at(row, starts)
    ends = [*cuts[1:], len(row)]
    return _row_words([row[start:end] for start, end in zip(cuts, ends, strict=True)])


def _indexes_at(row: str, columns: list[int]) -> list[int]:
    """Where in ``row`` each display column of ``columns`` starts, as docutils counts them
    (a wide character, Chinese or an emoji, is two columns; a combining one none)."""
    from unicodedata import combining, east_asian_width

    indexes: list[int] = []
    width = 0
    wanted = iter(columns)
    column = next(wanted, None)
    for index, char in enumerate(row):
        while column is not None and width >= column:
            indexes.append(index)
            column = next(wanted, None)
        if column is None:
            break
        width += 0 if combining(char) else 2 if east_asian_width(char) in "WF" else 1
    while len(indexes) < len(columns):
        indexes.append(len(row))
    return indexes


def _row_words(cells: list[str]) -> str:
    words = (_cell_words(cell.strip()) for cell in cells)
    text = "; ".join(word for word in words if word)
    if text and text[-1] not in ".!?:;":
        text += "."
    return text


def _cell_words(cell: str) -> str:
    """A cell's words: its roles, literals and references as a reader sees them (these
    cells never reach docutils)."""
    if "`" not in cell:
        return cell
    return _CELL_MARKUP.sub(
        lambda found: (
            found.group(3) if found.group(2) == "``" else role_text(found.group(3), found.group(1))
        ),
        cell,
    )
