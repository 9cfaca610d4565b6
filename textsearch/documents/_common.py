"""What the readers of binary and tabular formats share: the failure they raise, and text
and anchor helpers (apart from the dispatch in ``_formats``, which imports the readers)."""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = ["NotRead", "clean_text", "sheet_fragment"]


class NotRead(Exception):
    """A file that is not indexed, with the reason a report shows.

    ``missing``: the reader is not installed (the file is skipped, not failed).
    """

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing


_LIGATURES = re.compile("[\ufb00-\ufb06]")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def clean_text(text: str) -> str:
    """Text of a binary format as a model should read it: ligatures (U+FB00..FB06) as their
    letters, and no control character but a line feed and a tab."""
    if _LIGATURES.search(text):
        import unicodedata

        text = _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return _CONTROLS.sub(" ", text) if _CONTROLS.search(text) else text


# Characters a sheet name keeps in a link; others are percent-encoded (a space, "#", "%").
_SHEET_SAFE = "!$&'()*+,;=:@/?-._~"


def sheet_fragment(name: str) -> str:
    """The anchor of a worksheet: ``sheet=<name>``, the name percent-encoded where needed."""
    return "sheet=" + quote(name, safe=_SHEET_SAFE)
