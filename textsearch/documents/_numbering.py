"""The bullets and numbers Word shows before list paragraphs, read from ``numbering.xml``.

A Word list item carries no marker in its text: its paragraph (or its style) names a
numbering instance (``w:numPr/w:numId``) and a level (``w:ilvl``), and the numbering part
says, per level, the number format (``w:numFmt``: ``bullet``, ``decimal``, ``lowerLetter``,
...), the marker's template (``w:lvlText``, e.g. ``%1.`` or ``%1.%2)``) and the first number
(``w:start``). `ListMarkers` counts the items of each instance as Word does (a level's count
goes on across other paragraphs and restarts after an item of a higher level) and gives
each item its depth and its marker, a bullet read as ``-``.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ListMarkers"]

_MAX_LEVEL = 8  # Word has levels 0-8
_PLACEHOLDER = re.compile(r"%([1-9])")
_ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip
# A level: (number format, marker template, first number)
_Level = tuple[str, str, int]


def _qn(name: str) -> str:
    from docx.oxml.ns import qn

    return str(qn(name))


def _val(element: Any, child: str) -> str | None:
    found = element.find(_qn(child)) if element is not None else None
    return None if found is None else found.get(_qn("w:val"))


def _int(value: str | None, default: int) -> int:
    try:
        return max(0, min(int(value), 1_000_000)) if value is not None else default
    except ValueError:
        return default


def _roman(number: int) -> str:
    if not 0 < number < 4000:
        return str(number)
    out: list[str] = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def _formatted(number: int, kind: str) -> str:
    """``number`` as a level of format ``kind`` shows it (decimal for formats not named)."""
    if kind in ("lowerLetter", "upperLetter") and number > 0:
        # Word's letters: a-z, then aa-zz, then aaa-zzz, ...
        letter = chr(ord("a") + (number - 1) % 26) * min((number - 1) // 26 + 1, 10)
        return letter.upper() if kind == "upperLetter" else letter
    if kind in ("lowerRoman", "upperRoman"):
        roman = _roman(number)
        return roman.upper() if kind == "upperRoman" else roman
    if kind == "decimalZero":
        return f"{number:02d}"
    return str(number)


def _style_numbering(document: Any) -> dict[str, tuple[str, int, int]]:
    """``style id -> (numId, level, depth)`` of the paragraph styles that number their
    paragraphs.

    The depth is the level, except for a built-in style numbered at level 0 of its own list
    but named for a deeper one ("List Bullet 2", "List Number 3": Word's styles for the
    second and third levels of a list, indented as such), whose depth its name gives.
    """
    found: dict[str, tuple[str, int, int]] = {}
    for style in document.styles.element.iterchildren(_qn("w:style")):
        numbering = style.find(_qn("w:pPr"))
        numbering = numbering.find(_qn("w:numPr")) if numbering is not None else None
        num_id = _val(numbering, "w:numId")
        if num_id is None or num_id == "0":
            continue
        level = min(_int(_val(numbering, "w:ilvl"), 0), _MAX_LEVEL)
        depth = level
        name = (_val(style, "w:name") or "").lower().split()
        if level == 0 and len(name) == 3 and name[0] == "list" and name[2].isdigit():
            depth = min(int(name[2]) - 1, _MAX_LEVEL)
        found[str(style.get(_qn("w:styleId")) or "")] = (num_id, level, depth)
    return found


def _numbering_levels(document: Any) -> dict[str, dict[int, _Level]]:
    """``numId -> {level: (format, template, start)}`` from the numbering part, if any."""
    from docx.opc.constants import RELATIONSHIP_TYPE

    try:
        part = document.part.part_related_by(RELATIONSHIP_TYPE.NUMBERING)
    except KeyError:
        return {}
    root = part.element
    abstract: dict[str, dict[int, _Level]] = {}
    for definition in root.iterchildren(_qn("w:abstractNum")):
        levels: dict[int, _Level] = {}
        for level in definition.iterchildren(_qn("w:lvl")):
            index = _int(level.get(_qn("w:ilvl")), 0)
            if index <= _MAX_LEVEL:
                kind = _val(level, "w:numFmt") or "decimal"
                template = _val(level, "w:lvlText")
                if template is None:
                    template = f"%{index + 1}."
                levels[index] = (kind, template, _int(_val(level, "w:start"), 0))
        abstract[str(definition.get(_qn("w:abstractNumId")))] = levels
    instances: dict[str, dict[int, _Level]] = {}
    for instance in root.iterchildren(_qn("w:num")):
        levels = dict(abstract.get(_val(instance, "w:abstractNumId") or "", {}))
        for override in instance.iterchildren(_qn("w:lvlOverride")):
            index = _int(override.get(_qn("w:ilvl")), 0)
            start = _val(override, "w:startOverride")
            if index in levels and start is not None:
                kind, template, _ = levels[index]
                levels[index] = (kind, template, _int(start, 0))
        instances[str(instance.get(_qn("w:numId")))] = levels
    return instances


class ListMarkers:
    """Depth and marker of each list paragraph of one Word document, in reading order."""

    def __init__(self, document: Any) -> None:
        self._styles = _style_numbering(document)
        self._levels = _numbering_levels(document)
        self._counts: dict[str, list[int | None]] = {}

    def item(self, paragraph: Any, style_id: str) -> tuple[int, str] | None:
        """``(depth, marker)`` of a ``w:p`` that Word numbers (``None`` for one it does not):
        ``"-"`` for a bullet, else the level's template filled with the item's numbers
        (``"2."``, ``"b)"``, ``"1.3."``). Call it for every paragraph in order: the numbers
        count the items before it."""
        properties = paragraph.find(_qn("w:pPr"))
        numbering = properties.find(_qn("w:numPr")) if properties is not None else None
        if numbering is not None:
            num_id = _val(numbering, "w:numId")
            if num_id is None:  # a level only: the style's list at that level
                num_id = self._styles.get(style_id, ("0", 0, 0))[0]
            level = depth = min(_int(_val(numbering, "w:ilvl"), 0), _MAX_LEVEL)
        elif style_id in self._styles:
            num_id, level, depth = self._styles[style_id]
        else:
            return None
        if num_id == "0":  # numbering turned off for this paragraph
            return None
        levels = self._levels.get(num_id)
        if not levels or level not in levels:
            return depth, "-"
        counts = self._counts.setdefault(num_id, [None] * (_MAX_LEVEL + 1))
        for deeper in range(level + 1, _MAX_LEVEL + 1):
            counts[deeper] = None  # an item restarts the numbers of the levels below it
        kind, template, start = levels[level]
        current = counts[level]
        counts[level] = start if current is None else current + 1
        if kind in ("bullet", "none"):
            return depth, "-"

        def number(match: re.Match[str]) -> str:
            index = int(match.group(1)) - 1
            if index not in levels:
                return ""
            count = counts[index]
            return _formatted(levels[index][2] if count is None else count, levels[index][0])

        marker = _PLACEHOLDER.sub(number, template).strip()
        return depth, marker or "-"
