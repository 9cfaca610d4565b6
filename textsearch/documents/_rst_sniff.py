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


# The directive vocabulary both RST readers (docutils' and the fast path) share.
_CODE_DIRECTIVES = frozenset(
    {"code", "code-block", "sourcecode", "doctest", "testcode", "testoutput", "testsetup",
     "testcleanup", "ipython", "jupyter-execute", "prompt", "console", "highlight-block"}
)  # fmt: skip
# Parts of a directive's name that say its body is code (click:example, click:run, ...).
_CODE_HINTS = ("example", "code", "source", "literal", "doctest", "console", "shell", "run")
_DROPPED_DIRECTIVES = frozenset(
    {"toctree", "include", "literalinclude", "raw", "highlight", "currentmodule", "index",
     "contents", "sectnum", "meta", "image", "default-role", "role", "autosummary", "only-toc",
     "tabularcolumns", "header", "footer", "title", "class", "target-notes", "django-admin-option"}
)  # fmt: skip
_ARGUMENT_NOT_TEXT = frozenset({"only", "ifconfig", "figure", "tab", "container"})
_ADMONITIONS = frozenset(
    {"note", "warning", "tip", "important", "caution", "danger", "error", "hint", "attention",
     "seealso", "versionadded", "versionchanged", "deprecated", "versionremoved"}
)  # fmt: skip


def _directive_kind(name: str) -> str | None:
    """``"code"`` (body kept exactly), ``"dropped"``, or ``None`` (docutils' own, else generic)."""
    short = name.rpartition(":")[2]
    if name in _CODE_DIRECTIVES or short in _CODE_DIRECTIVES:
        return "code"
    if name in _DROPPED_DIRECTIVES or short in _DROPPED_DIRECTIVES:
        return "dropped"
    if short in _ADMONITIONS:
        return None  # docutils' own when it has one, else generic
    if ":" in name and any(hint in short for hint in _CODE_HINTS):
        return "code"
    return None
