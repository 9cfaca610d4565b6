"""reStructuredText to sections of plain text, read with docutils.

docutils parses; this module walks the doctree and keeps the words. Sphinx projects use
roles and directives docutils does not know (``:class:`X` ``, ``.. versionadded::``,
``.. code-block:: python`` with ``:caption:``): while a file is parsed, a name docutils
cannot find resolves to a generic role (its text, ``text <target>`` as "text") or a generic
directive (its argument and its body read as reStructuredText, or kept exactly when it is
code), so they degrade to their text, never to an error or to markup. Files are never
included (``.. include::``, ``:file:``) and raw markup is dropped; docutils reports nothing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from textsearch.connectors.local._blocks import Block, MarkupSection, docutils_slug
from textsearch.connectors.local._markdown import role_text

if TYPE_CHECKING:
    from docutils import nodes

__all__ = ["available", "looks_like_rst", "rst_blocks", "rst_sections"]

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

_lock = threading.Lock()


def available() -> bool:
    """Whether docutils is installed (the ``markup`` extra)."""
    try:
        _settings()
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def _settings() -> Any:
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    settings = get_default_settings(Parser)
    settings.report_level = 5  # nothing reported ...
    settings.halt_level = 5  # ... nothing fatal
    settings.warning_stream = False  # and nothing written to stderr
    settings.file_insertion_enabled = False  # a file in the index never reads another
    settings.raw_enabled = False
    settings.syntax_highlight = "none"  # code stays one text node, and no pygments
    settings.character_level_inline_markup = False
    settings.pep_references = False
    settings.rfc_references = False
    return settings


# -- roles and directives docutils does not know ---------------------------------------------


def _generic_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: Any = None,
    content: Any = None,
) -> tuple[list[Any], list[Any]]:
    from docutils import nodes, utils

    return [nodes.literal(rawtext, role_text(utils.unescape(text)))], []


@lru_cache(maxsize=1)
def _directive_classes() -> tuple[type[Any], type[Any], type[Any]]:
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class AnyOption(dict[str, Any]):
        # Sphinx directives take options docutils does not know (:caption:, :linenos:):
        # every option is accepted, as text.
        def __getitem__(self, key: str) -> Any:
            return directives.unchanged

        def __contains__(self, key: object) -> bool:
            return True

    any_option = AnyOption(any=directives.unchanged)

    class Code(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_option

        def run(self) -> list[Any]:
            node = nodes.literal_block("", "\n".join(self.content))
            node.line = self.content_offset + 1
            return [node]

    class Dropped(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_option

        def run(self) -> list[Any]:
            return []

    class Generic(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_option

        def run(self) -> list[Any]:
            container = nodes.container()
            container.line = self.lineno
            short = self.name.rpartition(":")[2]
            if self.arguments and short not in _ARGUMENT_NOT_TEXT:
                inline, _ = self.state.inline_text(self.arguments[0], self.lineno)
                paragraph = nodes.paragraph("", "", *inline)
                paragraph.line = self.lineno
                container += paragraph
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, container)
            return [container]

    return Code, Dropped, Generic


def _directive_for(name: str) -> type[Any] | None:
    code, dropped, generic = _directive_classes()
    short = name.rpartition(":")[2]
    if name in _CODE_DIRECTIVES or short in _CODE_DIRECTIVES:
        return code
    if name in _DROPPED_DIRECTIVES or short in _DROPPED_DIRECTIVES:
        return dropped
    if short in _ADMONITIONS:
        return None  # docutils' own when it has one, else generic (below)
    if ":" in name and any(hint in short for hint in _CODE_HINTS):
        return code
    return None


@contextmanager
def _lenient() -> Iterator[None]:
    """While parsing: unknown roles and directives resolve to the generic ones above.

    docutils looks names up through two module functions; they are wrapped for the length
    of one parse (under a lock, and restored after), asking docutils first, so only names
    it would reject change meaning, and nothing stays registered in the process.
    """
    from docutils.parsers.rst import directives, roles

    original_role = roles.role
    original_directive = directives.directive
    _, _, generic = _directive_classes()

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        found, messages = original_role(name, language, lineno, reporter)
        return (found or _generic_role), []

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        chosen = _directive_for(name.lower())
        if chosen is not None:
            return chosen, []
        found, messages = original_directive(name, language, document)
        return (found or generic), []

    with _lock:
        roles.role = role  # type: ignore[assignment]
        directives.directive = directive  # type: ignore[assignment]
        try:
            yield
        finally:
            roles.role = original_role
            directives.directive = original_directive


def _parse(text: str) -> nodes.document:
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    document = new_document("<index_path>", _settings())
    with _lenient():
        Parser().parse(text, document)
    return document


# -- the doctree as sections of blocks ----------------------------------------------------

_SKIPPED = frozenset(
    {"comment", "target", "substitution_definition", "system_message", "raw", "pending",
     "image", "transition", "decoration", "meta", "label", "citation_reference_label"}
)  # fmt: skip
_LISTS = frozenset(
    {"bullet_list", "enumerated_list", "definition_list", "field_list", "option_list"}
)
_CODE_NODES = frozenset({"literal_block", "doctest_block", "math_block"})


def _inline(node: Any, document: Any) -> str:
    """The text of an inline run: substitutions resolved, references by their text."""
    out: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        tag = current.tagname
        if tag == "#text":
            out.append(str(current))
            continue
        if tag in _SKIPPED:
            continue
        if tag == "substitution_reference":
            key = document.substitution_names.get(current.get("refname", "").lower())
            definition = document.substitution_defs.get(key) if key else None
            if definition is None:
                out.append(current.astext())
            else:
                out.extend(_inline(child, document) for child in definition.children)
            continue
        if tag in ("footnote_reference", "citation_reference"):
            out.append(f"[{current.astext()}]")
            continue
        if tag == "problematic":  # markup docutils could not pair: its words, not its marks
            out.append(current.astext().replace("`", "").replace("|", ""))
            continue
        if tag == "paragraph" and out:
            out.append(" ")
        stack.extend(reversed(current.children))
    return "".join(out)


class _Walker:
    def __init__(self, document: Any, offset: int, sections: bool) -> None:
        self.document = document
        self.offset = offset
        self.with_sections = sections
        self.title: str | None = None
        self.sections: list[MarkupSection] = []
        self.blocks: list[Block] = []
        self.heading: str | None = None
        self.anchor: str | None = None
        self.first = 1
        self.used: dict[str, int] = {}
        self.line = 1
        self.fresh = False  # the next block starts anew even where blocks are joined

    def _line(self, node: Any) -> int:
        line = getattr(node, "line", None)
        if isinstance(line, int) and line > 0:
            self.line = max(self.line, line + self.offset)
        return self.line

    def add(self, node: Any, text: str, *, code: bool = False, join: bool = False) -> None:
        line = self._line(node)
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

    def walk(self, node: Any, indent: str = "", prefix: str | None = None) -> str | None:
        """Add ``node``'s blocks; returns ``prefix`` when no block took it."""
        tag = node.tagname
        if tag == "system_message":
            self.unparsed(node)
            return prefix
        if tag in _SKIPPED:
            return prefix
        if tag == "section":
            return self.section(node, indent, prefix)
        if tag in _CODE_NODES:
            self.add(node, node.astext(), code=True)
            return prefix
        joined = bool(indent) or prefix is not None
        if not indent and prefix is None and tag in _LISTS:
            self.fresh = True  # a list, table or field list starts a block of its own
        if tag in ("bullet_list", "enumerated_list"):
            number = int(node.get("start", 1) or 1)
            for item in node.children:
                mark = "- " if tag == "bullet_list" else f"{number}. "
                number += 1
                pending: str | None = indent + mark
                for child in item.children:
                    pending = self.walk(child, indent + "  ", pending)
            return prefix
        if tag == "definition_list":
            for item in node.children:
                for child in item.children:
                    if child.tagname in ("term", "classifier"):
                        self.add(child, indent + _inline(child, self.document), join=bool(indent))
                    else:
                        for part in child.children:
                            self.walk(part, indent + "  ")
            return prefix
        if tag == "field_list":
            for field in node.children:
                name = _inline(field.children[0], self.document) if field.children else ""
                pending = f"{indent}{name}: "
                for child in field.children[1:]:
                    for part in child.children:
                        pending = self.walk(part, indent + "  ", pending)
                if pending is not None:
                    self.add(field, pending.rstrip(), join=True)
            return prefix
        if tag == "option_list":
            for item in node.children:
                self.add(item, indent + "  ".join(
                    _inline(child, self.document) for child in item.children
                ), join=True)  # fmt: skip
            return prefix
        if tag == "table":
            rows = []
            for row in node.findall(lambda n: n.tagname == "row"):
                cells = [" ".join(_inline(e, self.document).split()) for e in row.children]
                text = "; ".join(cell for cell in cells if cell)
                if text and text[-1] not in ".!?:;":
                    text += "."
                if text:
                    rows.append(text)
            title = node.next_node(lambda n: n.tagname == "title")
            if title is not None:
                rows.insert(0, _inline(title, self.document))
            self.add(node, "\n".join(rows))
            return prefix
        if tag == "line_block":
            lines = [_inline(line, self.document) for line in node.findall(
                lambda n: n.tagname == "line")]  # fmt: skip
            self.add(node, "\n".join(indent + line for line in lines), join=joined)
            return prefix
        if node.children and all(child.tagname == "#text" or not _is_block(child)
                                 for child in node.children) or tag in ("title", "rubric"):
            text = _inline(node, self.document)
            if tag == "attribution":
                text = "— " + text
            lead = prefix if prefix is not None else indent
            text = text.replace("\n", "\n" + " " * len(lead))
            self.add(node, (prefix if prefix is not None else indent) + text, join=joined)
            return None
        for child in node.children:
            prefix = self.walk(child, indent, prefix)
        return prefix

    def unparsed(self, message: Any) -> None:
        """Keep the words of markup docutils refused (a title inside an indented block):
        what it quotes back, without adornment lines; a refused directive stays out."""
        if message.get("level", 0) < 3:
            return
        for child in message.children:
            if child.tagname != "literal_block":
                continue
            source = child.astext()
            if source.lstrip().startswith(".."):
                continue
            kept = [line for line in source.split("\n") if not _is_adornment(line.strip())]
            self.add(message, "\n".join(kept).strip())

    def section(self, node: Any, indent: str, prefix: str | None) -> str | None:
        children = node.children
        title = children[0] if children and children[0].tagname == "title" else None
        heading = " ".join(_inline(title, self.document).split()) if title is not None else ""
        if self.with_sections and heading:
            self.sections.append((self.heading, self.anchor, self.first, self.blocks))
            self.blocks = []
            self.heading, self.anchor = heading, docutils_slug(heading, self.used)
            self.first = self._line(title) + 1
            if self.title is None:
                self.title = heading
        elif heading:
            self.add(title, heading)
        for child in children[1 if title is not None else 0 :]:
            prefix = self.walk(child, indent, prefix)
        return prefix


def _is_adornment(line: str) -> bool:
    return len(line) >= 2 and line[0] in _ADORNMENT and line == line[0] * len(line)


def _is_block(node: Any) -> bool:
    from docutils import nodes

    return isinstance(node, (nodes.Body, nodes.Structural, nodes.Part)) and not isinstance(
        node, nodes.Inline
    )


def rst_sections(raw: str) -> tuple[str | None, list[MarkupSection]]:
    """``(title, sections)`` of a reStructuredText document.

    Raises:
        ImportError: docutils is not installed.
    """
    document = _parse(raw)
    walker = _Walker(document, 0, True)
    for child in document.children:
        walker.walk(child)
    walker.sections.append((walker.heading, walker.anchor, walker.first, walker.blocks))
    return walker.title, walker.sections


def rst_blocks(raw: str, offset: int) -> list[Block]:
    """The blocks of a reStructuredText fragment (a MyST ``{eval-rst}`` body), titles as text."""
    document = _parse(raw)
    walker = _Walker(document, offset, False)
    for child in document.children:
        walker.walk(child)
    return walker.blocks


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


RstReader = Callable[[str, int], list[Block]]
