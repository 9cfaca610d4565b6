"""reStructuredText to sections of plain text, read with docutils.

docutils parses; this module walks the doctree and keeps the words. Sphinx projects use
roles and directives docutils does not know (```X` ``, ``.. versionadded::``,
``.. code-block:: python`` with ``:caption:``): while a file is parsed, a name docutils
cannot find resolves to a generic role (its text, ``text <target>`` as "text") or a generic
directive (its argument and its body read as reStructuredText, or kept exactly when it is
code), so they degrade to their text, never to an error or to markup. Files are never
included (``.. include::``, ``:file:``) and raw markup is dropped; docutils reports nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from textsearch.documents._blocks import (
    Block,
    Label,
    MarkupSection,
    SectionWriter,
    collector_paused,
    directive_label,
    docutils_slug,
    put_label,
)
from textsearch.documents._references import role_text
from textsearch.documents._rst_directives import ANCHOR as _ANCHOR
from textsearch.documents._rst_directives import LABEL as _LABEL
from textsearch.documents._rst_directives import directive_classes, directive_for
from textsearch.documents._rst_fast import (  # the lists: tests check them against docutils
    _DOCUTILS_DIRECTIVES,  # noqa: F401
    _DOCUTILS_ROLES,  # noqa: F401
    _directives_only,
)
from textsearch.documents._rst_limits import Placeholders, guard_lines
from textsearch.documents._rst_sniff import (
    _ADORNMENT,
    _from_source,
    _source_lines,
    looks_like_rst,
)

if TYPE_CHECKING:
    from docutils import nodes

__all__ = ["available", "looks_like_rst", "rst_blocks", "rst_sections"]

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

    return [nodes.literal(rawtext, role_text(utils.unescape(text), name))], []


# Names docutils did not know: it looked for them in every language module and built a
# message each time (Django's docs use :setting:, :ref:... thousands of times); asked once.
_unknown: dict[str, set[str]] = {"role": set(), "directive": set()}
_MAX_UNKNOWN = 2_000  # a file full of made-up names does not grow this without bound


def _remember(kind: str, name: str) -> None:
    if len(_unknown[kind]) < _MAX_UNKNOWN:
        _unknown[kind].add(name)


# docutils' roles that take a number (:rfc:`2324`), to which Sphinx adds titles
# (:rfc:`the spec <2324#section-2>`): a titled one reads as its title.
_NUMBERED_ROLES = frozenset({"rfc", "pep", "rfc-reference", "pep-reference"})


def _titled(role: Any) -> Any:
    def read(name: str, rawtext: str, text: str, *args: Any, **kwargs: Any) -> Any:
        if text.rstrip().endswith(">") and "<" in text:
            return _generic_role(name, rawtext, text, *args, **kwargs)
        return role(name, rawtext, text, *args, **kwargs)

    return read


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
    _, _, generic = directive_classes()

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        if name.lower() in _unknown["role"]:
            return _generic_role, []
        found, messages = original_role(name, language, lineno, reporter)
        if found is None:
            _remember("role", name.lower())
        elif name.lower() in _NUMBERED_ROLES:
            return _titled(found), []
        return (found or _generic_role), []

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        chosen = directive_for(name.lower())
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
    return _parse_guarded(text)[0]


def _parse_guarded(text: str) -> tuple[nodes.document, Placeholders]:
    """The doctree of ``text``, and the lines docutils was shown as placeholders (lines
    over its length bound, tables too wide for its table parser: see ``_rst_limits``)."""
    from docutils.parsers.rst import roles
    from docutils.utils import new_document

    document = new_document("<index_path>", _settings())
    lines, placeholders = guard_lines(_lines(text))
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
    return document, placeholders


# -- the doctree as sections of blocks ----------------------------------------------------

_SKIPPED = frozenset(
    {"comment", "target", "substitution_definition", "system_message", "raw", "pending",
     "image", "transition", "decoration", "meta", "label", "citation_reference_label"}
)  # fmt: skip
_LISTS = frozenset(
    {"bullet_list", "enumerated_list", "definition_list", "field_list", "option_list"}
)
_CODE_NODES = frozenset({"literal_block", "doctest_block", "math_block"})
# docutils' own admonitions (``admonition``, with a title of its own, apart).
_ADMONITION_NODES = frozenset(
    {"note", "warning", "tip", "important", "caution", "danger", "error", "hint", "attention"}
)


_SUBSTITUTION_CHARS = 100_000  # at least this much text from substitutions, per document
_MAX_SUBSTITUTION_DEPTH = 8  # a substitution used inside another, at most this deep


def _inline(node: Any, document: Any, budget: list[int] | None = None, depth: int = 0) -> str:
    """The text of an inline run: substitutions resolved, references by their text.

    ``budget`` bounds what substitutions add, in characters and expansions, for a whole
    document: definitions that each use the previous one twice double the text at every
    line (``.. |s1| replace:: |s0| |s0|``), so 30 lines would make gigabytes. Past the
    budget, or ``_MAX_SUBSTITUTION_DEPTH`` deep (a loop), a reference reads as its name.
    """
    out: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        tag = current.tagname
        if tag == "#text":
            text = current.astext()  # docutils' escapes (NUL-marked) resolved
            if budget is not None and depth:
                budget[0] -= len(text)
            out.append(text)
            continue
        if tag in _SKIPPED:
            continue
        if tag == "substitution_reference":
            key = document.substitution_names.get(current.get("refname", "").lower())
            definition = document.substitution_defs.get(key) if key else None
            spent = budget is not None and budget[0] <= 0
            if definition is None or spent or depth >= _MAX_SUBSTITUTION_DEPTH:
                out.append(current.astext())
            else:
                if budget is not None:
                    budget[0] -= 1 + len(definition.children)
                out.extend(
                    _inline(child, document, budget, depth + 1) for child in definition.children
                )
            continue
        if tag == "title_reference":
            # The default role: Sphinx projects make it a cross-reference (attrs' "any"),
            # so `text <target>` reads as its text, as an explicit role's does.
            out.append(role_text(current.astext()))
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
    def __init__(
        self,
        document: Any,
        source: str,
        offset: int,
        sections: bool,
        placeholders: Placeholders | None = None,
    ) -> None:
        super().__init__()
        self.document = document
        self.placeholders = placeholders or Placeholders()
        # What substitutions may add to this document's text (see _inline).
        self.budget = [max(_SUBSTITUTION_CHARS, 4 * len(source))]
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
        text = self.placeholders.restore(text, code=code)
        self.add_block(self._line(node), text, code=code, join=join)

    def inline(self, node: Any) -> str:
        return _inline(node, self.document, self.budget)

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
            if prefix is not None and prefix.strip():
                # An item (or field) whose first content is this list: its marker on a line
                # of its own, the list below it at its depth.
                self.add(node, prefix.rstrip(), join=True)
                prefix = None
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
                        self.add(child, indent + self.inline(child), join=bool(indent))
                    else:
                        for part in child.children:
                            self.walk(part, indent + "  ")
            return prefix
        if tag == "field_list":
            for field in node.children:
                name = self.inline(field.children[0]) if field.children else ""
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
                    self.inline(child) for child in item.children
                ), join=True)  # fmt: skip
            return prefix
        if tag == "table":
            rows = []
            for row in node.findall(lambda n: n.tagname == "row"):
                cells = [" ".join(self.inline(e).split()) for e in row.children]
                text = "; ".join(cell for cell in cells if cell)
                if text and text[-1] not in ".!?:;":
                    text += "."
                if text:
                    rows.append(text)
            title = node.next_node(lambda n: n.tagname == "title")
            if title is not None:
                rows.insert(0, self.inline(title))
            self.add(node, "\n".join(rows))
            return prefix
        if tag == "line_block":
            # Its lines, a nested block's (a line typed deeper) indented under them; the first
            # after the marker of the item it opens (``* | line``).
            lead = " " * len(prefix) if prefix is not None else indent
            lines = [lead + "  " * depth + self.inline(line) for line, depth in _block_lines(node)]
            if prefix is not None and lines:
                lines[0] = prefix + lines[0][len(lead) :]
            self.add(node, "\n".join(lines), join=joined)
            return None
        if (
            node.children
            and all(child.tagname == "#text" or not _is_block(child) for child in node.children)
            or tag in ("title", "rubric")
        ):
            text = self.inline(node)
            if tag == "attribution":
                text = "— " + text
            lead = prefix if prefix is not None else indent
            text = text.replace("\n", "\n" + " " * len(lead))
            self.add(node, (prefix if prefix is not None else indent) + text, join=joined)
            return None
        label = self.label(node)
        if label is not None:
            body = [child for child in node.children if child.tagname != "title"]
            if not indent and prefix is None:
                line, start = self._line(node), len(self.blocks)
                for child in body:
                    self.walk(child)
                put_label(self.blocks, start, label, line)
                return None
            # In a list item or a field: the label leads the item's first line.
            lead = (prefix if prefix is not None else indent) + label.text.rstrip(":")
            first: str | None = lead + ": "
            for child in body:
                first = self.walk(child, indent, first)
            if first is not None and label.alone:
                self.add(node, lead + ".", join=True)
            return None
        for child in node.children:
            prefix = self.walk(child, indent, prefix)
        return prefix

    def label(self, node: Any) -> Label | None:
        """The label a directive's node shows its text under (`directive_label`)."""
        tag = node.tagname
        if tag == "container":
            found = node.get(_LABEL)
            if found is None:
                return None
            label, words = found
            text = self.placeholders.restore(" ".join(self.inline(words).split()), code=False)
            return Label(text, label.rest, label.alone) if text else None
        if tag == "admonition":
            title = node.children[0] if node.children else None
            if title is None or title.tagname != "title":
                return None
            text = self.placeholders.restore(" ".join(self.inline(title).split()), code=False)
            return Label(text, "") if text else None
        return directive_label(tag, "") if tag in _ADMONITION_NODES else None

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
        heading = " ".join(self.inline(title).split()) if title is not None else ""
        heading = self.placeholders.restore(heading, code=False)[:500]
        made = node.get(_ANCHOR)  # a section a directive made (a changelog's release)
        outer = (self.heading, self.anchor)
        if self.with_sections and heading:
            anchor = made or docutils_slug(heading, self.used)
            self.open_section(heading, anchor, self._line(title) + 1)
        elif heading:
            self.add(title, heading)
        for child in children[1 if title is not None else 0 :]:
            prefix = self.walk(child, indent, prefix)
        if made and self.with_sections and heading and outer[0] is not None:
            # what follows the directive is the enclosing section's again
            self.open_section(outer[0], outer[1], self._line(node) + 1)
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
    document, placeholders = _parse_guarded(raw)
    walker = _Walker(document, raw, 0, True, placeholders)
    for child in document.children:
        walker.walk(child)
    walker.close_section()
    return walker.title, walker.sections


def rst_blocks(raw: str, offset: int) -> list[Block]:
    """The blocks of a reStructuredText fragment (a MyST ``{eval-rst}`` body), titles as text."""
    simple = _directives_only(raw, offset)
    if simple is not None:
        return simple
    document, placeholders = _parse_guarded(raw)
    walker = _Walker(document, raw, offset, False, placeholders)
    for child in document.children:
        walker.walk(child)
    return walker.blocks


RstReader = Callable[[str, int], list[Block]]


def _block_lines(block: Any, depth: int = 0) -> Iterator[tuple[Any, int]]:
    """``(line, depth)`` of a line block's lines, in order, nested blocks one deeper."""
    for child in block.children:
        if child.tagname == "line_block":
            yield from _block_lines(child, depth + 1)
        elif child.tagname == "line":
            yield child, depth
