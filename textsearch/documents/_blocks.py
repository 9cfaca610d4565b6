"""What the markup readers make: sections of blocks, each block with its source line.

A reader (Markdown, MyST, reStructuredText) turns a file into sections; a section is its
heading, the heading's anchor, its first line and its blocks. A block is a paragraph, a
list, a table or a code block as plain text, with the line it starts on in the file, so a
passage's ``#L<n>`` link stays right whatever the markup took away. Code blocks are kept
exactly (``code=True``): the packer never re-indents or re-flows them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = [
    "Block",
    "MarkupSection",
    "SHOWN_OPTIONS",
    "SectionWriter",
    "collector_paused",
    "Label",
    "directive_label",
    "only_shows",
    "shown_code",
    "option_labels",
    "put_label",
    "shown_options",
    "strip_tags",
]


@dataclass(slots=True)
class Block:
    """One block of a section: its first line in the file, its text, whether it is code."""

    line: int
    text: str
    code: bool = False


#: ``(heading, anchor, first line, blocks)``
MarkupSection = tuple["str | None", "str | None", int, list[Block]]


class SectionWriter:
    """What a reader writes into: blocks, gathered into sections at each heading.

    The Markdown and reStructuredText readers walk different trees into the same output
    through this one class: prose blocks may be joined (list items, field lists), code blocks
    never are, and empty text makes no block.
    """

    def __init__(self) -> None:
        self.title: str | None = None
        self.sections: list[MarkupSection] = []
        self.blocks: list[Block] = []
        self.heading: str | None = None
        self.anchor: str | None = None
        self.first = 1
        self.used: dict[str, int] = {}  # anchors given so far, to number repeats
        self.fresh = False  # the next block starts anew even where blocks are joined

    def add_block(self, line: int, text: str, *, code: bool = False, join: bool = False) -> None:
        """Add a block starting on ``line``; ``join``: onto the last prose block, if any."""
        if code:
            if text.strip():
                self.blocks.append(Block(line, text, True))
            return
        if not text.strip():
            return
        last = self.blocks[-1] if self.blocks else None
        if join and last is not None and not last.code and not self.fresh:
            last.text += "\n" + text
        else:
            self.blocks.append(Block(line, text))
        self.fresh = False

    def close_section(self) -> None:
        self.sections.append((self.heading, self.anchor, self.first, self.blocks))
        self.blocks = []

    def open_section(self, heading: str, anchor: str | None, first: int) -> None:
        """End the section so far; the next blocks are under ``heading`` (the first names
        the document unless something else did)."""
        self.close_section()
        self.heading, self.anchor, self.first = heading, anchor, first
        if self.title is None:
            self.title = heading


# What a rendered page shows before a version directive's text (Sphinx's words) and the title
# an admonition shows, by the directive's name. Without them a passage read "3.1 Use bar
# instead." where the page says "Deprecated since version 3.1: Use bar instead."
_VERSION_LABELS = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_ADMONITION_LABELS = {
    "note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
    "caution": "Caution", "danger": "Danger", "error": "Error", "hint": "Hint",
    "attention": "Attention", "seealso": "See also", "info": "Info",
}  # fmt: skip
# Directives whose argument is the label: ``admonition``; the tabs of sphinx-tabs
# (``tab``, ``group-tab``) and sphinx-design (``tab-item``).
_TITLED = frozenset({"admonition", "tab", "group-tab", "tab-item"})
_LABELLED = frozenset({*_VERSION_LABELS, *_ADMONITION_LABELS, *_TITLED})


@dataclass(frozen=True, slots=True)
class Label:
    """What a directive's text shows under: ``text`` (``Note``, ``Changed in version 2.4``),
    what is left of the argument as text (``rest``), and whether the label is a sentence of
    its own when the directive holds no text (``alone``: a version directive's)."""

    text: str
    rest: str
    alone: bool = False


#: The options of an object description a rendered page shows (Sphinx's ``confval`` and
#: ``py:attribute``: ``Type: str``, ``Default: 'alabaster'``), by name, with their label.
SHOWN_OPTIONS = {"type": "Type", "default": "Default", "value": "Value"}
#: Options only some directives show: the ``changelog`` extension's (SQLAlchemy, Alembic,
#: Mako), whose pages head each release with its version and date and tag each change.
_DIRECTIVE_OPTIONS = {
    "changelog": {"version": "Version", "released": "Released"},
    "change": {"tags": "Tags", "tickets": "Tickets", "versions": "Versions"},
}


#: zzzeeksphinx's lexers (SQLAlchemy's docs), whose code marks where the SQL a statement
#: emits starts and stops: the page shows that SQL in a box of its own, not the marks.
_SQL_MARKED = ("pycon+sql", "python+sql")
_SQL_MARKS = re.compile(r"\{(?:sql|execsql|opensql|printsql|stop)\}")


def shown_code(language: str, code: str) -> str:
    """A code block as its page shows it: exactly as written, but for zzzeeksphinx's SQL
    marks (``{execsql}SELECT ...``, ``{stop}``) in ``pycon+sql`` and ``python+sql``."""
    if language.strip().lower() not in _SQL_MARKED or "{" not in code:
        return code
    return _SQL_MARKS.sub("", code)


def option_labels(directive: str) -> dict[str, str]:
    """The options a directive's page shows, by name, with the label each shows under."""
    extra = _DIRECTIVE_OPTIONS.get(directive.rpartition(":")[2].lower())
    return SHOWN_OPTIONS if extra is None else {**SHOWN_OPTIONS, **extra}


def shown_options(options: Iterable[tuple[str, str]], directive: str = "") -> str:
    """The lines a page shows for a directive's options (`option_labels`; others are not
    text), one ``Label: value`` a line; empty when none is shown."""
    labels = option_labels(directive)
    return "\n".join(
        f"{labels[key]}: {value.strip()}"
        for key, value in options
        if key in labels and value and value.strip()
    )


def directive_label(name: str, argument: str) -> Label | None:
    """The label a directive's text shows under, ``None`` for a directive that shows none.

    ``name`` is the directive's name (a domain's prefix is ignored); ``argument`` the text
    after it on its line. An ``admonition``'s argument is its title, a tab's its label; a
    version directive's first word is the version, the rest its first text.
    """
    short = name.rpartition(":")[2].lower()
    if short not in _LABELLED:
        return None
    argument = argument.strip()
    if short in _VERSION_LABELS:
        version, *rest = argument.split(None, 1) or [""]
        text = f"{_VERSION_LABELS[short]} {version}".rstrip()
        return Label(text, rest[0].strip() if rest else "", alone=True)
    if short in _TITLED:  # an admonition's title, a tab's label (as MkDocs' "=== Tab")
        return Label(argument, "") if argument else None
    if short in _ADMONITION_LABELS:
        return Label(_ADMONITION_LABELS[short], argument)
    return None


def put_label(blocks: list[Block], start: int, label: Label, line: int) -> None:
    """Show ``label`` above the blocks from ``start`` (a directive's body), as a rendered
    page shows it: the first line of the first block when that is prose (``Note:``), a block
    of its own before code; with no block at all, a version label as a sentence (``Changed
    in version 2.4.``) and an admonition's not at all."""
    text = label.text.rstrip(":")
    if start >= len(blocks):
        if label.alone:
            blocks.append(Block(line, text + "."))
        return
    first = blocks[start]
    if first.code:
        blocks.insert(start, Block(line, text + ":"))
    else:
        first.text = f"{text}:\n{first.text}"
        first.line = min(first.line, line)


# The tags Sphinx sets for its HTML builder: an ``only`` block holding anything else
# (``.. only:: latex``) is not on the site, and often repeats what is (pytest's list of
# 1,641 plugins, once as a table and once for LaTeX).
_HTML_TAGS = frozenset({"html", "format_html", "builder_html", "html5"})


def only_shows(expression: str) -> bool:
    """Whether an ``only`` directive's body is on a page Sphinx's HTML builder makes:
    ``expression`` (``not latex``, ``html or epub``: tag names, ``and``, ``or``, ``not``,
    brackets) with the HTML builder's tags set; ``True`` for an expression that cannot be
    read (the body is kept). Python's own parser reads it; nothing is evaluated."""
    import ast

    def value(node: ast.expr) -> bool:
        if isinstance(node, ast.BoolOp):
            values = [value(operand) for operand in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.Name):
            return node.id in _HTML_TAGS
        raise ValueError(expression)

    try:
        return value(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True


def strip_tags(html: str) -> str:
    """The text of an HTML fragment: tags and comments dropped, entities decoded.

    One left-to-right scan with ``str.find``: linear in the input whatever it holds (an
    unclosed ``<`` or ``<!--`` keeps the rest as text rather than searching again).
    """
    import html as html_module

    out: list[str] = []
    pos = 0
    size = len(html)
    while pos < size:
        start = html.find("<", pos)
        if start == -1:
            out.append(html[pos:])
            break
        out.append(html[pos:start])
        following = html[start + 1 : start + 2]
        if html.startswith("<!--", start):
            end = html.find("-->", start + 4)
            if end == -1:
                break  # an unclosed comment hides the rest, as a browser does
            pos = end + 3
            continue
        if not following or not (following.isalpha() or following in "/!?"):
            out.append("<")
            pos = start + 1
            continue
        end = html.find(">", start + 1)
        if end == -1:
            out.append(html[start:])
            break
        pos = end + 1
    return html_module.unescape("".join(out))


def github_slug(heading: str, used: dict[str, int]) -> str:
    """The anchor GitHub gives a heading's plain text (numbered when repeated)."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in "-_ ")
    slug = kept.replace(" ", "-")
    count = used.get(slug, 0)
    used[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def docutils_slug(heading: str, used: dict[str, int]) -> str:
    """The anchor docutils gives a title (numbered when repeated)."""
    out: list[str] = []
    for c in heading.lower():
        out.append(c if ("a" <= c <= "z" or "0" <= c <= "9") else "-")
    slug = "-".join(part for part in "".join(out).split("-") if part) or "section"
    count = used.get(slug, 0)
    used[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a parser builds one file's tree.

    What a parser builds lives until the file has been read, so collections meanwhile free
    nothing of it, but they walked the growing tree again and again: ~25% of a docutils
    parse, ~7% of a markdown-it one. Left as it was if something else turned it off.
    """
    import gc

    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
