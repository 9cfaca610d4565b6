"""Markdown and MyST to sections of plain text, read with markdown-it-py.

CommonMark with GFM tables, YAML front matter, and MyST's roles (``{class}`X` ``), targets,
comments, block breaks and directive fences (```` ```{note} ````, ``:::{note}``). The parser
decides what is markup; this module only walks its tokens and keeps the words: link and
image text, code without its backticks, table cells, list items. Code blocks are kept
exactly as written. markdown-it-py caps nesting and is linear in its input, which is what
lets a crafted file not stall indexing (tests/connectors/test_local_crafted_input.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from textsearch.documents._blocks import (
    Block,
    Label,
    MarkupSection,
    SectionWriter,
    directive_label,
    github_slug,
    only_shows,
    put_label,
    shown_code,
    shown_options,
    strip_tags,
)
from textsearch.documents._dialects import unfold
from textsearch.documents._references import link_title, role_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

__all__ = ["available", "markdown_sections", "source_sections"]

# MyST directives whose body is code (kept exactly) or is not text for a reader.
_CODE_DIRECTIVES = frozenset(
    {"code", "code-block", "sourcecode", "code-cell", "doctest", "testcode", "testoutput",
     "ipython", "jupyter-execute", "math", "prompt", "console", "productionlist"}
)  # fmt: skip
_DROPPED_DIRECTIVES = frozenset(
    {"toctree", "contents", "include", "literalinclude", "raw", "highlight", "currentmodule",
     "image", "index", "tableofcontents", "bibliography", "moduleauthor", "sectionauthor",
     "codeauthor"}
)  # fmt: skip
_ARGUMENT_NOT_TEXT = _CODE_DIRECTIVES | {
    "figure", "eval-rst", "only", "ifconfig", "module", "program"
}  # fmt: skip


def dropped_directive(name: str) -> bool:
    """Whether a MyST directive (``toctree``, ``contents``, ``py:currentmodule``...) holds no
    text for a reader; both readers drop it."""
    name = name.strip().lower()
    return name in _DROPPED_DIRECTIVES or name.rpartition(":")[2] in _DROPPED_DIRECTIVES


_MAX_DIRECTIVE_DEPTH = 8


def available() -> bool:
    """Whether markdown-it-py and mdit-py-plugins are installed (the ``markup`` extra)."""
    try:
        _parser()
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin
    from mdit_py_plugins.myst_role import myst_role_plugin

    # "commonmark" caps nesting at 20 levels: deeper quotes or lists stay text.
    parser = (
        MarkdownIt("commonmark")
        .enable("table")
        .enable("strikethrough")
        .use(front_matter_plugin)
        .use(myst_role_plugin)
        .use(myst_block_plugin)
        .use(colon_fence_plugin)
    )
    parser.inline.ruler.before("link", "autoref", _autoref)
    # Link targets are never shown: normalizing and checking them was ~20% of the parse.
    parser.normalizeLink = _same  # type: ignore[method-assign]
    parser.normalizeLinkText = _same  # type: ignore[method-assign,assignment]
    parser.validateLink = _accepted  # type: ignore[method-assign]
    # Inline content is parsed by the reader, and only where it holds markup (_inline_of);
    # text_join only merges tokens the reader joins anyway.
    parser.disable(["inline", "text_join"])
    return parser


# mkdocs-autorefs' identifiers: a dotted (or ``module:object``) name, or a heading's anchor.
_AUTOREF_ID = re.compile(r"[A-Za-z_][\w-]*(?:[.:][A-Za-z_][\w-]*)+|[A-Za-z][\w]*(?:-[\w]+)+")


def _autoref(state: StateInline, silent: bool) -> bool:
    """A cross-reference of mkdocs-autorefs (mkdocstrings' sites: pydantic, FastAPI...):
    ``[`BaseModel`][pydantic.BaseModel]`` and ``[pydantic.Field][]`` have no reference
    definition, so CommonMark leaves them as written, brackets and identifier; the site shows
    a link, its text alone. Read so, with the text's own markup; a defined reference is left
    to the link rule, and an identifier must look like one (``a[i][j]`` stays)."""
    src, start = state.src, state.pos
    if src[start] != "[" or start and src[start - 1].isalnum():
        return False
    end = state.md.helpers.parseLinkLabel(state, start, True)
    second = end + 1
    if end < 0 or second >= state.posMax or src[second] != "[":
        return False
    close = src.find("]", second + 1, state.posMax)
    if close < 0:
        return False
    identifier = src[second + 1 : close] or src[start + 1 : end].strip("`")
    if not _AUTOREF_ID.fullmatch(identifier):
        return False
    from markdown_it.common.utils import normalizeReference

    if normalizeReference(identifier) in state.env.get("references", {}):
        return False  # a reference the page defines: the link rule's
    if not silent:
        limit = state.posMax
        state.pos, state.posMax = start + 1, end
        state.push("link_open", "a", 1)
        state.md.inline.tokenize(state)
        state.push("link_close", "a", -1)
        state.posMax = limit
    state.pos = close + 1
    return True


def _same(url: str) -> str:
    return url


def _accepted(url: str) -> bool:
    return True


# The characters at which an inline rule can start (escape, code, emphasis, strikethrough,
# link, image, autolink, raw HTML, entity, MyST role). Content without any is its own text.
_INLINE_MARKUP = re.compile(r"[\\`*_~\[\]!<&{]")
# A line break with the blanks around it (the inline parser drops both). The lookbehind
# starts a match only where a run of blanks starts: without it, a long run not followed by a
# newline is rescanned from each of its characters (quadratic).
_LINE_BREAK = re.compile(r"(?<![ \t])[ \t]+\n[ \t]*|\n[ \t]+")


def _inline_of(token: Token, env: dict[str, Any]) -> str:
    return _inline(token.content, env)


def _inline(content: str, env: dict[str, Any]) -> str:
    """What a reader sees of inline Markdown (a paragraph's, a directive argument's)."""
    if _INLINE_MARKUP.search(content) is None:
        # What the inline parser would make: soft and hard breaks as newlines.
        return _LINE_BREAK.sub("\n", content).rstrip()
    children: list[Token] = []
    parser = _parser()
    parser.inline.parse(content, parser, env, children)
    return inline_text(children)


def inline_text(tokens: Sequence[Token]) -> str:
    """The plain text of a run of inline tokens.

    Strong emphasis written with underscores around one word keeps them: ``__init__`` is
    a name (CommonMark reads it as strong "init", which no reader of Python docs means).
    """
    out: list[str] = []
    count = len(tokens)
    index = 0
    while index < count:
        token = tokens[index]
        kind = token.type
        if (
            kind == "strong_open"
            and token.markup == "__"
            and index + 2 < count
            and tokens[index + 1].type == "text"
            and tokens[index + 2].type == "strong_close"
            and _WORD.fullmatch(tokens[index + 1].content)
        ):
            out.append(token.markup + tokens[index + 1].content + token.markup)
            index += 3
            continue
        if kind in ("text", "text_special", "code_inline") or kind.startswith("math"):
            out.append(token.content)
        elif kind == "softbreak" or kind == "hardbreak":
            out.append("\n")
        elif kind == "image":
            out.append(inline_text(token.children or ()))  # its alt text
        elif kind == "myst_role":
            out.append(role_text(token.content, token.meta.get("name")))
        elif kind == "link_open":
            href = str(token.attrs.get("href", ""))
            if index + 1 < count and tokens[index + 1].type == "link_close":
                out.append(link_title(href))  # MyST's [](#label): the target's title
                index += 2
                continue
            if token.markup == "autolink" and href.startswith("project:"):
                out.append(link_title(href))  # MyST's <project:#label>
                index += 3
                continue
        # html_inline: one tag, comment or CDATA section; the text around it is text
        index += 1
    return "".join(out)


_WORD = re.compile(r"\w+")


class _Reader(SectionWriter):
    """Walks markdown-it's tokens into sections; one per file (and per directive body)."""

    def __init__(
        self, rst: Callable[[str, int], list[Block]] | None, anchors: dict[int, str]
    ) -> None:
        super().__init__()
        self.rst = rst
        self.anchors = anchors  # a top-level heading's own id (MkDocs' ``{ #id }``), by line

    def read(self, source: str, offset: int, depth: int, *, sections: bool) -> None:
        env: dict[str, Any] = {}
        tokens = _parser().parse(source, env)
        lists: list[list[Any]] = []  # per open list: [ordered?, next number, marker width]
        item_prefix: str | None = None  # set at an item's start, used by its first block
        in_table: list[str] | None = None
        table_rows: list[str] = []
        table_line = 0
        quote_depth = 0
        i = 0
        while i < len(tokens):
            token = tokens[i]
            kind = token.type
            line = (token.map[0] if token.map else 0) + offset + 1
            if kind == "heading_open":
                text = _inline_of(tokens[i + 1], env).strip()
                top = sections and token.level == 0 and not lists and not quote_depth
                if top and text:
                    first = (token.map[1] if token.map else 0) + offset + 1
                    anchor = self.anchors.get(line - 1)
                    if anchor is None:
                        anchor = github_slug(text, self.used)
                    else:
                        self.used[anchor] = self.used.get(anchor, 0) + 1
                    self.open_section(text, anchor, first)
                else:
                    self.add_block(line, text)
                i += 3
                continue
            if kind == "inline":
                text = _inline_of(token, env)
                if in_table is not None:
                    in_table.append(" ".join(text.split()))
                elif lists:
                    # an item's marker on its first line; its other lines, and its later
                    # paragraphs, under the item's text (as the source has them)
                    indent = "  " * (len(lists) - 1)
                    inner = indent + " " * lists[-1][2]
                    if item_prefix is not None:
                        head, newline, rest = text.partition("\n")
                        text = indent + item_prefix + head + newline + _indent(rest, inner)
                        item_prefix = None
                    else:
                        text = _indent(text, inner)
                    self.add_block(line, text, join=True)
                else:
                    self.add_block(line, text)
            elif kind == "bullet_list_open" or kind == "ordered_list_open":
                start = int(token.attrs.get("start", 1) or 1) if kind[0] == "o" else 0
                if not lists:
                    self.fresh = True  # a list is a block of its own
                elif item_prefix is not None:
                    # An item whose first content is this list: its marker on a line of its
                    # own, the list below it at its depth.
                    outer = "  " * (len(lists) - 1)
                    self.add_block(line, outer + item_prefix.rstrip(), join=True)
                    item_prefix = None
                lists.append([kind[0] == "o", start, 2])
            elif kind == "bullet_list_close" or kind == "ordered_list_close":
                lists.pop()
            elif kind == "list_item_open":
                ordered, number, _ = lists[-1]
                item_prefix = f"{number}. " if ordered else "- "
                lists[-1][1:] = [number + 1, len(item_prefix)]
            elif kind == "blockquote_open":
                quote_depth += 1
            elif kind == "blockquote_close":
                quote_depth -= 1
            elif kind == "code_block" or kind == "fence" and not token.info.startswith("{"):
                code = shown_code(
                    token.info.split(maxsplit=1)[0] if token.info.strip() else "", token.content
                )
                self.add_block(line, code.rstrip("\n"), code=True)
                item_prefix = None
            elif kind == "fence" or kind == "colon_fence":
                self.directive(token, line, depth)
                item_prefix = None
            elif kind == "html_block":
                self.add_block(line, strip_tags(token.content).strip("\n"))
            elif kind == "front_matter":
                if self.title is None and offset == 0:
                    self.title = _front_matter_title(token.content)
            elif kind == "table_open":
                table_rows, table_line = [], line
            elif kind == "tr_open":
                in_table = []
            elif kind == "tr_close" and in_table is not None:
                row = "; ".join(cell for cell in in_table if cell)
                if row and row[-1] not in ".!?:;":
                    row += "."  # rows stay apart when a snippet joins the lines
                if row:
                    table_rows.append(row)
                in_table = None
            elif kind == "table_close":
                self.add_block(table_line, "\n".join(table_rows))
            i += 1

    def directive(self, token: Token, line: int, depth: int) -> None:
        info = token.info.strip()
        if info.startswith("{"):  # MyST: {name} argument
            name, _, argument = info.partition("}")
        else:  # Docusaurus, VitePress: ``:::tip Title``, ``:::tip[Title]``
            found = _CONTAINER_INFO.match(info)
            name, argument = (found.group(1), found.group(2)) if found else (info, "")
        name = name.lstrip("{").strip().lower()
        if token.type == "fence" and _code_cell(name):
            self.add_block(line, token.content.rstrip("\n"), code=True)
            return
        argument = argument.strip()
        body, skipped = _directive_body(token.content)
        body_line = line + 1 + skipped
        short = name.rpartition(":")[2]  # a domain's directive (py:function) by its name
        if dropped_directive(name) or short == "only" and not only_shows(argument):
            return
        label = directive_label(name, argument)
        if not info.startswith("{") and argument:
            label = Label(argument, "")  # Docusaurus, VitePress: ``:::tip Title``: the title
        if label is not None:
            argument = label.rest
            words = " ".join(_inline(label.text, {}).split())  # a tab labelled `netstat`
            label = Label(words, label.rest, label.alone)
        start = len(self.blocks)
        if argument and name not in _ARGUMENT_NOT_TEXT and short not in _ARGUMENT_NOT_TEXT:
            self.add_block(line, argument)
        options = ""
        if skipped:  # read as Markdown: a value may hold a role or a code span
            lines = token.content.split("\n", skipped)[:skipped]
            options = shown_options(_options(lines), name)
        if options:
            self.read(options, line, depth + 1, sections=False)
        if name in _CODE_DIRECTIVES or "example" in name:
            self.add_block(body_line, shown_code(argument, body).rstrip("\n"), code=True)
        elif name == "eval-rst" and self.rst is not None:
            self.blocks.extend(self.rst(body, body_line - 1))
        elif depth >= _MAX_DIRECTIVE_DEPTH:
            self.add_block(body_line, body)
        else:
            self.read(body, body_line - 1, depth + 1, sections=False)
        if label is not None:
            put_label(self.blocks, start, label, line)


_CONTAINER_INFO = re.compile(r"([\w-]*)\[?(.*?)\]?$", re.S)
# A fence's ``{language ...}`` that runs code (Quarto, R Markdown, Jupytext), not a directive.
_CELL_LANGUAGES = frozenset(
    {"python", "r", "julia", "bash", "sh", "shell", "sql", "ojs", "js", "javascript",
     "typescript", "mermaid", "dot", "c", "cpp", "rust", "go", "java", "scala", "ruby",
     "perl", "powershell", "matlab", "octave", "stata", "sas", "rcpp", "stan", "ipython3"}
)  # fmt: skip


def _code_cell(name: str) -> bool:
    """Whether a fence's ``{name}`` is code: a language (``{python}``, ``{r setup, echo=FALSE}``)
    or pandoc's class form (``{.python}``)."""
    return name.startswith(".") or re.split(r"[\s,]", name, maxsplit=1)[0] in _CELL_LANGUAGES


def _indent(text: str, indent: str) -> str:
    """``text`` with ``indent`` before each of its lines that is not empty."""
    if not indent or not text:
        return text
    return "\n".join(indent + part if part else part for part in text.split("\n"))


_OPTION_LINE = re.compile(r":[\w.+-]+:(?:\s|$)")


def _directive_body(content: str) -> tuple[str, int]:
    """A MyST directive's body without its options (``:key: value`` lines or a ``---`` block).

    Returns the body and how many lines were taken off its top.
    """
    lines = content.split("\n")
    skipped = 0
    if lines and lines[0].strip() == "---":
        end = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), None)
        if end is not None:
            skipped = end + 1
    else:
        # ``:key: value`` (not a nested ``:::{tab-item}`` fence, which is body)
        while skipped < len(lines) and _OPTION_LINE.match(lines[skipped]):
            skipped += 1
    if skipped and skipped < len(lines) and not lines[skipped].strip():
        skipped += 1
    return "\n".join(lines[skipped:]), skipped


def _options(lines: list[str]) -> Iterator[tuple[str, str]]:
    """A MyST directive's options (``:key: value`` lines, or ``key: value`` in a ``---``
    block) as ``(key, value)``."""
    for line in lines:
        key, colon, value = line.strip().lstrip(":").partition(":")
        if colon and key and " " not in key:
            yield key.lower(), value


def _front_matter_title(content: str) -> str | None:
    for raw in content.split("\n"):
        if raw.startswith("title:"):
            return raw[6:].strip().strip("'\"") or None
    return None


def markdown_sections(
    raw: str, rst: Callable[[str, int], list[Block]] | None = None, *, mdx: bool = False
) -> tuple[str | None, list[MarkupSection]]:
    """``(title, sections)`` of a Markdown or MyST document.

    Sections start at each top-level heading; the title is the front matter's ``title:``,
    else the first heading. ``rst`` reads a MyST ``{eval-rst}`` body (``(text, line offset)``
    to blocks), when reStructuredText can be read. MkDocs' extension syntax (admonitions,
    tabs, pymdown blocks, attribute lists...) is read as what it shows (`_dialects.unfold`);
    ``mdx``: the page is MDX (its ``import``/``export`` blocks and JSX comments dropped).

    Raises:
        ImportError: markdown-it-py or mdit-py-plugins is not installed.
    """
    text, anchors = unfold(raw, mdx=mdx)
    reader = _Reader(rst, anchors)
    reader.read(text, 0, 0, sections=True)
    reader.close_section()
    return reader.title, reader.sections


def source_sections(raw: str) -> list[MarkupSection]:
    """Sections of a text kept as given (what ``add_documents(..., chunk=True)`` splits):
    top-level headings start sections, named by their text; every other top-level block is
    its source lines as written, a fenced code block its lines between the fences."""
    env: dict[str, Any] = {}
    tokens = _parser().parse(raw, env)
    lines = raw.split("\n")
    writer = SectionWriter()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        begin, end = token.map
        kind = token.type
        if kind == "heading_open":
            text = _inline_of(tokens[index], env).strip()
            if text:
                writer.open_section(text, github_slug(text, writer.used), end + 1)
        elif kind == "fence":
            body = lines[begin + 1 : end]
            if body and body[-1].strip().startswith(token.markup):
                body.pop()  # the closing fence
            writer.add_block(begin + 2, "\n".join(body), code=True)
        elif kind != "front_matter":
            writer.add_block(begin + 1, "\n".join(lines[begin:end]))
            writer.fresh = True
        # a block's inner tokens are covered by its lines
        while index < len(tokens) and tokens[index].level > 0:
            index += 1
    writer.close_section()
    return writer.sections
