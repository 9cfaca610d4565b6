"""Whether a ``.txt`` file is reStructuredText (Django's docs are), told without docutils."""

from __future__ import annotations

import re

__all__ = ["looks_like_rst"]


# -- is a .txt file reStructuredText? -------------------------------------------------------

_DIRECTIVE_LINE = re.compile(r"^\.\. [A-Za-z][\w.:+-]{0,60}::(?:[ \t]|$)", re.MULTILINE)
_LABEL_LINE = re.compile(r"^\.\. _[^\n:]{1,200}:[ \t]*$", re.MULTILINE)
_ADORNMENT = frozenset("=-~^\"'`#*+_:.")
_SNIFF_CHARS = 64 * 1024


def looks_like_rst(text: str) -> bool:
    """Whether a ``.txt`` file is reStructuredText: a directive or label, or a title whose
    adornment line is at least as long as it (``====`` under or over a line of text)."""
    head = text[:_SNIFF_CHARS]
    if _DIRECTIVE_LINE.search(head) or _LABEL_LINE.search(head):
        return True
    lines = head.split("\n")
    for number in range(1, len(lines)):
        line = lines[number].rstrip()
        if len(line) < 3 or line[0] not in _ADORNMENT or line != line[0] * len(line):
            continue
        above = lines[number - 1].rstrip()
        if above and not above[0].isspace() and len(above) <= len(line) and above[0] != line[0]:
            return True
    return False
