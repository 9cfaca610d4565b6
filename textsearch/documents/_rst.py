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

from textsearch.documents._blocks import (
    Block,
    MarkupSection,
    SectionWriter,
    collector_paused,
    docutils_slug,
)
from textsearch.documents._markdown import role_text

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


@lru_cache(maxsize=1)
def available() -> bool:
    """Whether docutils is installed (the ``markup`` extra); found, not imported: a MyST
    file whose ``{eval-rst}`` bodies need no parse never loads it (~30 ms)."""
    from importlib.util import find_spec

    return find_spec("docutils") is not None


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

    class Lenient(Directive):
        # One argument (any text), any option, a body: what a Sphinx directive may have.
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_option

    class Code(Lenient):
        def run(self) -> list[Any]:
            lines = list(self.content)
            first = self.content_offset + 1
            marker = self.block_text.split("\n", 1)[0]
            if self.arguments and not self.options and not marker.partition("::")[2].strip():
                # Code right under the directive, no blank line between (".. click:run::"
                # then "    invoke(cli)"): docutils read its first lines as the argument,
                # but nothing was on the directive's line, so they are code.
                head = self.arguments[0].split("\n")
                gap = first - (self.lineno + 1) - len(head)
                lines = head + [""] * gap + lines if lines else head
                first = self.lineno + 1
            node = nodes.literal_block("", "\n".join(lines))
            node.line = first
            return [node]

    class Dropped(Lenient):
        def run(self) -> list[Any]:
            return []

    class Generic(Lenient):
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


def _directive_for(name: str) -> type[Any] | None:
    kind = _directive_kind(name)
    if kind is None:
        return None
    code, dropped, _ = _directive_classes()
    return code if kind == "code" else dropped


# Names docutils did not know: it looked for them in every language module and built a
# message each time (Django's docs use :setting:, :ref:... thousands of times); asked once.
_unknown: dict[str, set[str]] = {"role": set(), "directive": set()}
_MAX_UNKNOWN = 2_000  # a file full of made-up names does not grow this without bound


def _remember(kind: str, name: str) -> None:
    if len(_unknown[kind]) < _MAX_UNKNOWN:
        _unknown[kind].add(name)


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
        if name.lower() in _unknown["role"]:
            return _generic_role, []
        found, messages = original_role(name, language, lineno, reporter)
        if found is None:
            _remember("role", name.lower())
        return (found or _generic_role), []

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        chosen = _directive_for(name.lower())
        if chosen is not None:
            return chosen, []
        if name.lower() in _unknown["directive"]:
            return generic, []
        found, messages = original_directive(name, language, document)
        if found is None:
            _remember("directive", name.lower())
        return (found or generic), []

    with _lock:
        roles.role = role  # type: ignore[assignment]
        directives.directive = directive  # type: ignore[assignment]
        try:
            yield
        finally:
            roles.role = original_role
            directives.directive = original_directive


@lru_cache(maxsize=1)
def _machinery() -> tuple[Any, Any]:
    """A parser and a top-level state machine whose states, and nested machines', are lazy.

    docutils starts a new state machine for every list, directive, comment and indented
    block, and each one built all 15 of its states (compiling their transitions) although it
    uses two or three: that was ~40% of the time of parsing a Sphinx project's files, and
    most of the cost of a short MyST ``{eval-rst}`` body. The state classes here are
    docutils' own, subclassed under the same names, and their machines build a state the
    first time it is entered. Only the classes handed to this module's parser change:
    docutils' own stay as they are for anyone else in the process. The top-level machine is
    made once and reused, as docutils reuses its nested ones (parses hold ``_lock``).
    """
    from docutils.parsers.rst import Parser, states

    class LazyStates(dict[str, Any]):
        def __init__(self, machine: Any, classes: Any) -> None:
            super().__init__()
            self.machine = machine
            self.classes = {cls.__name__: cls for cls in classes}
            self.running = False

        def __contains__(self, name: object) -> bool:
            return name in self.classes

        def __missing__(self, name: str) -> Any:
            state = self[name] = self.classes[name](self.machine, self.machine.debug)
            if self.running:  # built mid-run: set up as run() set up the others
                state.runtime_init()
            return state

    class Lazy:
        states: LazyStates

        def add_states(self, state_classes: Any) -> None:
            self.states = LazyStates(self, state_classes)

        def runtime_init(self) -> None:
            self.states.running = True
            super().runtime_init()  # type: ignore[misc]

    class LazyNested(Lazy, states.NestedStateMachine):  # type: ignore[misc]
        pass

    class LazyTop(Lazy, states.RSTStateMachine):  # type: ignore[misc]
        pass

    def lazy_class(stock: type[Any]) -> type[Any]:
        def init(self: Any, state_machine: Any, debug: bool = False) -> None:
            stock.__init__(self, state_machine, debug)
            # One dict, shared with the indented-block machines' keyword arguments.
            self.nested_sm_kwargs["state_classes"] = lazy

        return type(stock.__name__, (stock,), {
            "nested_sm": LazyNested,
            "nested_sm_cache": [],  # never a machine of docutils' own classes
            "__init__": init,
        })  # fmt: skip

    lazy = tuple(lazy_class(stock) for stock in states.state_classes)
    # The inliner's patterns depend only on the settings, which are always _settings(): built
    # at the first parse, not at every one (a fifth of a short {eval-rst} body's cost). Not a
    # subclass: docutils formats its patterns from the class's own attributes.
    inliner = states.Inliner()
    build = inliner.init_customizations
    built: list[bool] = []

    def init_customizations(settings: Any) -> None:
        if not built:
            build(settings)
            built.append(True)

    inliner.init_customizations = init_customizations  # type: ignore[method-assign]
    parser = Parser(inliner=inliner)
    parser.state_classes = lazy
    return parser, LazyTop(state_classes=lazy, initial_state="Body")


_LINE_LIMIT = 10_000  # docutils' own bound on a line's length (inline markup is not linear)


def _lines(text: str) -> list[str]:
    """The lines docutils parses: split at newlines only, so that line numbers are the
    file's (``str.splitlines`` also splits at form feeds, U+2028, ...), tabs expanded to
    columns of 8 and other blanks made spaces, as docutils does, trailing blanks off."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\v" in text or "\f" in text:
        text = text.replace("\v", " ").replace("\f", " ")
    if "\t" in text:
        return [line.expandtabs(8).rstrip() for line in text.split("\n")]
    return [line.rstrip() for line in text.split("\n")]


def _parse(text: str) -> nodes.document:
    """The doctree of ``text``: one parse, nothing reported, unknown names generic."""
    from docutils.parsers.rst import roles
    from docutils.utils import new_document

    document = new_document("<index_path>", _settings())
    lines = _lines(text)
    if any(len(line) > _LINE_LIMIT for line in lines):
        # What docutils would refuse whole: read those lines as text, the rest as markup.
        lines = [line if len(line) <= _LINE_LIMIT else "" for line in lines]
    parser, machine = _machinery()
    with _lenient(), collector_paused():
        parser.setup_parse(text, document)
        try:
            machine.run(lines, document, inliner=parser.inliner)
        except BaseException:
            # A parse that did not finish (RecursionError on deep nesting, caught by the
            # caller) may leave the reused machine half set up: the next parse gets new ones.
            _machinery.cache_clear()
            raise
        finally:
            parser.finish_parse()
            roles._roles.pop("", None)  # type: ignore[attr-defined]  # no default role outlives its document
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


class _Walker(SectionWriter):
    def __init__(self, document: Any, source: str, offset: int, sections: bool) -> None:
        super().__init__()
        self.document = document
        self.source = source
        self.source_lines: list[str] | None = None  # split when a code block needs them
        self.offset = offset
        self.with_sections = sections
        self.line = 1

    def _line(self, node: Any) -> int:
        line = getattr(node, "line", None)
        if isinstance(line, int) and line > 0:
            self.line = max(self.line, line + self.offset)
        return self.line

    def add(self, node: Any, text: str, *, code: bool = False, join: bool = False) -> None:
        self.add_block(self._line(node), text, code=code, join=join)

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
            self.add(node, self.code(node), code=True)
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
        if (
            node.children
            and all(child.tagname == "#text" or not _is_block(child) for child in node.children)
            or tag in ("title", "rubric")
        ):
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

    def code(self, node: Any) -> str:
        """A code block's text as the file has it: docutils expanded its tabs and dropped
        trailing blanks; the lines are taken back from the source, less the block's indent."""
        text: str = node.astext()
        line = getattr(node, "line", None)
        if not isinstance(line, int) or node.tagname == "math_block":
            return text
        if self.source_lines is None:
            self.source_lines = _source_lines(self.source)
        return _from_source(text, line - 1, self.source_lines)

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
            anchor = docutils_slug(heading, self.used)
            self.open_section(heading, anchor, self._line(title) + 1)
        elif heading:
            self.add(title, heading)
        for child in children[1 if title is not None else 0 :]:
            prefix = self.walk(child, indent, prefix)
        return prefix


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
    walker = _Walker(document, raw, 0, True)
    for child in document.children:
        walker.walk(child)
    walker.close_section()
    return walker.title, walker.sections


def rst_blocks(raw: str, offset: int) -> list[Block]:
    """The blocks of a reStructuredText fragment (a MyST ``{eval-rst}`` body), titles as text."""
    simple = _directives_only(raw, offset)
    if simple is not None:
        return simple
    document = _parse(raw)
    walker = _Walker(document, raw, offset, False)
    for child in document.children:
        walker.walk(child)
    return walker.blocks


# -- MyST bodies simple enough to read without docutils ---------------------------------------

# A name as docutils takes one (words joined by single "-._+:"): ".. a__b::" is a comment.
_DIRECTIVE_START = re.compile(r"\.\. ([A-Za-z0-9]+(?:[-._+:][A-Za-z0-9]+)*)::(?: |$)")
_OPTION = re.compile(r":[A-Za-z][\w-]*:(?: |$)")
_BULLET = re.compile(r"([-*+])( +)(?=\S)")

# The directives and roles docutils itself knows (0.20 to 0.23, English names): any other
# name reads as the generic directive or role above. Listed, not asked: asking imports
# docutils, which is what reading a body without it saves (~40 ms, the most of a cold MyST
# read). tests/connectors/test_local_passages.py checks these against the installed docutils.
_DOCUTILS_DIRECTIVES = frozenset(
    {"admonition", "attention", "caution", "class", "code", "code-block", "compound",
     "container", "contents", "csv-table", "danger", "date", "default-role", "epigraph",
     "error", "figure", "footer", "header", "highlights", "hint", "image", "important",
     "include", "line-block", "list-table", "math", "meta", "note", "parsed-literal",
     "pull-quote", "raw", "replace", "restructuredtext-test-directive", "role",
     "rst-class", "rubric", "section-numbering", "sectnum", "sidebar", "sourcecode", "table",
     "target-notes", "tip", "title", "topic", "unicode", "warning"}
)  # fmt: skip
_DOCUTILS_ROLES = frozenset(
    {"ab", "abbreviation", "ac", "acronym", "anonymous-reference", "citation-reference",
     "code", "emphasis", "footnote-reference", "i", "index", "literal", "math",
     "named-reference", "pep", "pep-reference", "raw", "restructuredtext-unimplemented-role",
     "rfc", "rfc-reference", "strong", "sub", "subscript", "substitution-reference", "sup",
     "superscript", "t", "target", "title", "title-reference", "uri", "uri-reference", "url"}
)  # fmt: skip
_LIST_TABLE_OPTIONS = frozenset({"header-rows", "stub-columns", "widths", "class", "name"})
_MAX_FAST_DEPTH = 8


def _directives_only(raw: str, offset: int) -> list[Block] | None:
    """The blocks of a fragment docutils would read in ways this module can tell without
    it, ``None`` for anything else (which docutils reads).

    What is read here: paragraphs of words with roles, ``literals`` and `titles`; code
    directives (their body kept exactly, also when it starts right under the directive);
    dropped ones (``currentmodule``, ``toctree``...); directives docutils does not know
    (``tabs``, ``group-tab``, ``autoclass``: their argument, then their body read the same
    way); bullet lists of such paragraphs or directives; and simple ``list-table`` s.

    Most MyST ``{eval-rst}`` bodies are that (all 141 of click's docs), and with none left
    for it docutils is never imported nor set up, which was most of the cost of reading a
    MyST project in a new process. What this returns is what the parse gives
    (tests/connectors/test_local_passages.py compares the two on crafted bodies,
    test_local_doc_sets.py on every body of the real ones).
    """
    if "\t" in raw or "\r" in raw or "\v" in raw or "\f" in raw:
        return None
    lines = raw.split("\n")
    if any(len(line) > _LINE_LIMIT for line in lines):
        return None
    blocks: list[Block] = []
    return blocks if _read_fast(lines, offset, blocks, 0) else None


def _read_fast(lines: list[str], first: int, blocks: list[Block], depth: int) -> bool:
    """Add the blocks of ``lines`` (the first is file line ``first + 1``); ``False`` where
    docutils must read them."""
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        if line[0] == " ":
            return False  # a block quote
        found = _DIRECTIVE_START.match(line)
        if found is not None:
            index = _fast_directive(lines, index, found, first, blocks, depth)
        elif _BULLET.match(line):
            index = _fast_list(lines, index, first, blocks)
        else:
            end = _block_end(lines, index)
            text = _paragraph(lines[index:end])
            if text is None:
                return False
            blocks.append(Block(first + index + 1, text))
            index = end
        if index < 0:
            return False
    return True


def _block_end(lines: list[str], index: int) -> int:
    end = index
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def _indented_block(lines: list[str], index: int) -> tuple[list[str], int] | None:
    """The lines under line ``index`` indented past it, less their common indent, trailing
    blanks off, and where the next block starts; ``None`` when no blank line ends it."""
    end = index + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][0] == " "):
        end += 1
    if end < len(lines) and lines[end - 1].strip():
        return None
    body = lines[index + 1 : end]
    while body and not body[-1].strip():
        body.pop()
    indent = min((len(text) - len(text.lstrip(" ")) for text in body if text.strip()), default=0)
    return [text[indent:] for text in body], end


def _fast_directive(
    lines: list[str], index: int, found: re.Match[str], first: int, blocks: list[Block],
    depth: int,
) -> int:  # fmt: skip
    """Read the directive on line ``index``; where the next block starts, or -1."""
    name = found.group(1).lower()
    kind = _directive_kind(name)
    if kind is None and name not in _DOCUTILS_DIRECTIVES:
        kind = "generic"
    elif kind is None and name == "list-table":
        kind = "table"
    block = _indented_block(lines, index)
    if kind is None or block is None:
        return -1
    body, end = block
    argument = lines[index][found.end() :].strip()
    lineno = first + index + 1
    # Options, then a blank line, then the content.
    split = next((n for n, text in enumerate(body) if not text.strip()), len(body))
    options = body[:split]
    content = body[split + 1 :]
    content_line = first + index + 1 + split + 1  # 0-based file line of content[0]
    while content and not content[0].strip():
        content.pop(0)
        content_line += 1
    names = [text[1:].partition(":")[0].lower() for text in options]
    if len(set(names)) < len(names):
        return -1  # docutils refuses a repeated option, and the directive with it
    if not all(_OPTION.match(text) for text in options):
        if kind != "code" or argument or options[0][0] in ": ":
            return -1
        if any(text.startswith(":") for text in options):
            return -1
        # Code right under the directive: docutils takes its first lines as the argument
        # and the Code directive above gives them back, with what follows, from line + 1.
        text = "\n".join(body)
        if text.strip():
            blocks.append(Block(lineno + 1, text, True))
        return end
    if kind == "code":
        text = "\n".join(content)
        if text.strip():
            blocks.append(Block(content_line + 1, text, True))
    elif kind == "generic":
        if argument and name.rpartition(":")[2] not in _ARGUMENT_NOT_TEXT:
            words = _plain_inline(argument)
            if words is None:
                return -1
            if words.strip():
                blocks.append(Block(lineno, words))
        if content and (
            depth >= _MAX_FAST_DEPTH or not _read_fast(content, content_line, blocks, depth + 1)
        ):
            return -1  # fmt: skip
    elif kind == "table":
        rows = _list_table(argument, options, content)
        if rows is None:
            return -1
        text = "\n".join(rows)
        if text.strip():
            blocks.append(Block(lineno, text))
    return end


def _list_table(argument: str, options: list[str], content: list[str]) -> list[str] | None:
    """The lines the walker makes of a ``list-table`` (its title, then a line a row) whose
    cells are one line of words each; ``None`` for any other."""
    rows: list[list[str]] = []
    marks = ""
    column = 0
    for line in content:
        if not line.strip():
            continue
        outer = _BULLET.match(line)
        if outer is not None:
            rest, column = line[outer.end() :], outer.end()
            rows.append([])
        elif rows and line.startswith(" " * column) and line[column] != " ":
            rest = line[column:]
        else:
            return None
        cell: str | None = ""
        if rest in ("-", "*", "+"):
            inner_mark = rest  # an empty cell
        else:
            inner = _BULLET.match(rest)
            if inner is None:
                return None
            inner_mark, cell = inner.group(1), _paragraph([rest[inner.end() :]])
        mark = (outer.group(1) if outer is not None else marks[0]) + inner_mark
        if marks and mark != marks or cell is None:
            return None
        marks = mark
        rows[-1].append(" ".join(cell.split()))
    columns = len(rows[0]) if rows else 0
    if not rows or any(len(row) != columns for row in rows):
        return None
    for option in options:
        key, _, value = option[1:].partition(":")
        value = value.strip()
        if key not in _LIST_TABLE_OPTIONS or not value and key in ("class", "name"):
            return None
        if key == "header-rows" and not (value.isdigit() and int(value) < len(rows)):
            return None
        if key == "stub-columns" and not (value.isdigit() and int(value) < columns):
            return None
        widths = value.replace(",", " ").split()
        if (
            key == "widths"
            and value not in ("auto", "grid")
            and not (
                len(widths) == columns
                and all(width.isdigit() and int(width) > 0 for width in widths)
            )
        ):
            return None
    out: list[str] = []
    if argument:
        title = _plain_inline(argument)
        if title is None:
            return None
        out.append(title)
    for cells in rows:
        text = "; ".join(cell for cell in cells if cell)
        if text and text[-1] not in ".!?:;":
            text += "."
        if text:
            out.append(text)
    return out


def _fast_list(lines: list[str], index: int, first: int, blocks: list[Block]) -> int:
    """Read a bullet list whose items are one paragraph, or one directive docutils does not
    know with an argument and no body; where the next block starts, or -1."""
    items: list[str] = []
    start = index
    mark = lines[index][0]
    count = len(lines)
    while index < count:
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        found = _BULLET.match(line)
        if found is None or line[0] != mark:
            break
        column = found.end()
        end = index + 1
        while end < count and lines[end].strip() and lines[end][:column].strip() == "":
            end += 1
        item = [line[column:]] + [text[column:] for text in lines[index + 1 : end]]
        if end < count and lines[end].strip() and lines[end][0] != mark:
            return -1  # the list ends without a blank line
        if (
            end < count
            and lines[end].strip() == ""
            and end + 1 < count
            and lines[end + 1][:column].strip() == ""
            and lines[end + 1].strip()
        ):
            return -1  # a second block in the item  # fmt: skip
        directive = _DIRECTIVE_START.match(item[0])
        text: str | None
        if directive is not None:
            name = directive.group(1).lower()
            argument = item[0][directive.end() :].strip()
            if (_directive_kind(name) is not None or name in _DOCUTILS_DIRECTIVES
                    or not argument or name.rpartition(":")[2] in _ARGUMENT_NOT_TEXT
                    or not all(_OPTION.match(text.lstrip()) and text[:1] == " "
                               for text in item[1:])):  # fmt: skip
                return -1
            text = _plain_inline(argument)
        else:
            text = _paragraph(item)
        if text is None or not text.strip():
            return -1
        items.append("- " + text.replace("\n", "\n  "))
        index = end
    blocks.append(Block(first + start + 1, "\n".join(items)))
    return index


# Words, spaces and punctuation that is never inline markup; "_" only inside a word or
# starting one (a link is ``name_``, a target ``_`name` ``).
_PLAIN_RUN = re.compile(
    r"(?:[^\W_]|[ ,.;:!?'\"()/#-]|(?<![^\s(])_(?=[^\W_])|(?<=[^\W_])_(?=[^\W_]))*"
)
# A role (``:name:`text` ``), a title (```text` ``) or a literal (````text````), one line.
# Bounded, so that from any position the pattern looks a few hundred characters ahead at
# most: a line of ":a:a:a..." stays linear.
_SPAN = re.compile(r"(?::([A-Za-z0-9]{1,40}(?:[-.+:][A-Za-z0-9]{1,40}){0,5}):)?(``?)([^`]+?)\2")
_LIST_START = re.compile(r"(?:\w{1,4}[.)]|\(\w{1,4}\)|#[.)]|\(#\))(?: |$)")
_AFTER_LITERAL = frozenset(" .,;:!?)'\"")
_AFTER_INTERPRETED = frozenset(" .,;!?)'\"")  # not ":" (a role after) nor "_" (a link)


def _paragraph(lines: list[str]) -> str | None:
    """The text of a paragraph's lines, or ``None`` (see ``_plain_inline``). Its first line
    must start no other construct (a list, a field, a title, a comment...), and no later
    one may be a title's underline."""
    if not _starts_text(lines[0]) or lines[0][0] == ":" or _LIST_START.match(lines[0]):
        return None
    texts: list[str] = []
    for line in lines:
        if not _starts_text(line) or not line[0].isalnum() and line == line[0] * len(line):
            return None
        text = _plain_inline(line)
        if text is None:
            return None
        texts.append(text)
    return "\n".join(texts)


def _starts_text(line: str) -> bool:
    head = line[:1]
    return (
        head.isalnum() or head in ("`", ":") or line.startswith(("# ", "("))
        or head == "_" and line[1:2].isalnum()
    )  # fmt: skip


def _plain_inline(line: str) -> str | None:
    """The text docutils makes of one line whose only markup is roles, titles and
    literals that start after a space or "(" and end before a space or punctuation; roles
    docutils does not know read as the generic role does. ``None`` for any other line."""
    if "::" in line or "  " in line or "\\" in line or line != line.strip():
        return None
    out: list[str] = []
    position = 0
    for span in _SPAN.finditer(line):
        begin, end = span.span()
        role, ticks, text = span.groups()
        before = line[position:begin]
        if _PLAIN_RUN.fullmatch(before) is None or (begin and line[begin - 1] not in " ("):
            return None
        after = line[end : end + 1] or " "
        if text[0].isspace() or text[-1].isspace() or text[0] == ")":
            return None
        out.append(before)
        if ticks == "``":
            if role is not None or after not in _AFTER_LITERAL:
                return None
            out.append(text)
        elif after not in _AFTER_INTERPRETED:
            return None
        elif role is None:
            if "<" in text:
                return None
            out.append(text)  # the default role, title-reference: its text
        elif role.lower() in _DOCUTILS_ROLES:
            return None
        else:
            out.append(role_text(text))
        position = end
    rest = line[position:]
    if _PLAIN_RUN.fullmatch(rest) is None:
        return None
    out.append(rest)
    return "".join(out)


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
