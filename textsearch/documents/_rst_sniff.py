"""What both reStructuredText readers share, without docutils: whether a ``.txt`` file is
reStructuredText (Django's docs are), the directive vocabulary, and a code block's lines as
the source has them."""

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
     "testcleanup", "ipython", "jupyter-execute", "prompt", "console", "highlight-block",
     "productionlist"}
)  # fmt: skip
# Parts of a directive's name that say its body is code (click:example, click:run, ...).
_CODE_HINTS = ("example", "code", "source", "literal", "doctest", "console", "shell", "run")
_DROPPED_DIRECTIVES = frozenset(
    {"toctree", "include", "literalinclude", "raw", "highlight", "currentmodule", "index",
     "contents", "sectnum", "meta", "image", "default-role", "role", "autosummary", "only-toc",
     "tabularcolumns", "header", "footer", "title", "target-notes", "moduleauthor",
     "sectionauthor", "codeauthor"}
)  # fmt: skip
# (The author directives show nothing unless conf.py sets show_authors, which is off by default.)
# Names docutils has a directive of its own for, but that mean Sphinx's in its projects:
# ``.. class:: Field(...)`` describes a class (docutils' sets the next element's classes,
# and refused the signature, losing the whole description).
_SPHINX_MEANING = frozenset({"class"})
# Directives whose argument is no text of the page: a condition, a file, or a name the
# directive only makes a link target of (Sphinx's ``module``, ``program``; Django's
# ``setting``, ``templatetag``, ``templatefilter``, ``fieldlookup``), shown by nothing, or
# by the heading that follows; or HTML classes (Sphinx's ``cssclass``).
_ARGUMENT_NOT_TEXT = frozenset(
    {"only", "ifconfig", "figure", "container", "module", "program", "setting",
     "templatetag", "templatefilter", "fieldlookup", "cssclass"}
)  # fmt: skip
_ADMONITIONS = frozenset(
    {"note", "warning", "tip", "important", "caution", "danger", "error", "hint", "attention",
     "seealso", "versionadded", "versionchanged", "deprecated", "versionremoved"}
)  # fmt: skip


def _directive_kind(name: str) -> str | None:
    """``"code"`` (body kept exactly), ``"dropped"``, ``"generic"`` (its argument, then its
    body), or ``None`` (docutils' own, else generic)."""
    if name in _SPHINX_MEANING:
        return "generic"
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


# -- a code block's lines as the source has them (docutils expands tabs, drops blanks) ---


def _source_lines(text: str) -> list[str]:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _columns(line: str) -> str:
    """A line as docutils reads it: tabs to columns of 8, form feeds spaces, blanks off."""
    return line.replace("\v", " ").replace("\f", " ").expandtabs(8).rstrip()


def _from_column(line: str, column: int) -> str:
    """What follows display column ``column`` of ``line`` (tabs at columns of 8); a tab that
    straddles the column leaves the spaces past it."""
    if "\t" not in line[:column]:
        return line[column:]  # no tab before it: a column is a character
    at = 0
    for index, char in enumerate(line):
        if at >= column:
            return line[index:]
        at = (at // 8 + 1) * 8 if char == "\t" else at + 1
        if at > column:
            return " " * (at - column) + line[index + 1 :]
    return ""


def _from_source(text: str, start: int, source: list[str]) -> str:
    """``text`` (docutils' lines of a code block whose first line is source line ``start``,
    0-based) as the source has it; ``text`` itself when the lines do not match up."""
    code = text.split("\n")
    end = start + len(code)
    if start < 0 or end > len(source):
        return text
    lines = source[start:end]
    if lines == code:
        return text  # the common case: no indent, no tab, no trailing blank
    indent: int | None = None
    for want, have in zip(code, lines, strict=True):
        if not want:
            if _columns(have):
                return text
            continue
        seen = _columns(have)
        width = len(seen) - len(want)
        if width < 0 or seen[width:] != want or seen[:width].strip() or indent not in (None, width):
            return text
        indent = width
    if indent is None:
        return text
    return "\n".join(_from_column(have, indent) for have in lines)
