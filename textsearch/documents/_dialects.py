"""Markdown dialects (MkDocs, GitHub, MDX) read as CommonMark: their markers never reach a model.

Most Python projects document with MkDocs and Material for MkDocs, whose pages lean on
Python-Markdown's and pymdown-extensions' syntax. Read as plain CommonMark, an admonition's
``!!! note`` line stays text and its indented body becomes a code block, kept verbatim with
its links and backticks; ``/// tip | Title`` blocks, ``=== "Tab"`` tabs, mkdocstrings'
``::: package.module`` lines, snippet includes, attribute lists and icon shortcodes all reach
the passage as written. `unfold` rewrites them, line for line, into what they show:

- ``!!! note "Title"`` / ``??? note`` / ``???+ note`` (admonitions, collapsible details) and
  ``=== "Tab"`` (content tabs): the title (or the type, as Python-Markdown shows it) as a line
  ``Title:``, and the indented body moved out four columns and read as Markdown;
- ``/// type | title`` ... ``///`` (pymdown's blocks): the title as above, the options under
  the header and the closing line dropped; ``html``, ``define`` and caption blocks show only
  their body;
- ``::: package.module`` (mkdocstrings) and its indented options, ``--8<--`` (snippets):
  dropped, as they include text from elsewhere;
- ``*[HTML]: Hyper Text Markup Language`` (abbreviations): ``HTML: Hyper Text...``;
  footnotes ``[^1]`` and ``[^1]: text``: ``[1]`` and ``[1] text``;
- inline, outside code spans: attribute lists (``{: .class }``, ``{ #id }``) dropped (a
  heading's ``#id`` becomes its anchor, as on the site), icon shortcodes
  (``:material-check:``) dropped, ``==mark==`` and ``^^insert^^`` as their text,
  ``++ctrl+alt+del++`` as ``Ctrl+Alt+Del``;
- GitHub's alerts (``> [!NOTE]``, a quote's first line): ``Note:``;
- in MDX (``.mdx``, Docusaurus): the ``import``/``export`` blocks and ``{/* comments */}``
  dropped; JSX tags are HTML to the reader, which keeps the text between them.

Fenced code is never touched, so a page showing the syntax keeps it in its examples. The
text keeps its line count, so every block keeps its line number (and its ``#L`` link).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["unfold"]

# An icon of Material for MkDocs' sets (``:material-check:``, ``:fontawesome-brands-github:``).
_ICON_SETS = "material|fontawesome|octicons|simple|lucide"
_ICON = rf":(?:{_ICON_SETS})-[a-z0-9-]+:"
# Any of the syntax below, at a line's start or inline; a page without it is returned as it
# is. Each line's start is found by the newline before it (a pattern led by a character, not
# by ``^``, is skipped through in C), the first line's by `_BLOCK_START`.
_LEADING = r"[ \t>]*(?:\[!\w+\]|!!!|\?\?\?|===[!+]*[ ]+\"|/{3}|::: |-{1,}8<|\*\[)"
_BLOCK_START = re.compile(_LEADING)
_SYNTAX = re.compile(
    rf"\n{_LEADING}|\{{[:.#]|\{{ +[.#]|\[\^|==[^\s=](?:[^=\n]*[^\s=])?=="
    rf"|\+\+[\w-]+(?:\+[\w-]+)*\+\+|\^\^\S|{_ICON}"
)
# CommonMark's own: a code fence's opening or closing line, a quote's marker.
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_QUOTE = re.compile(r"^ {0,3}> ?")
# MDX: an ESM block's first line, a JSX comment. GitHub: an alert, a quote's first line.
_ESM = re.compile(r"^(?:import|export)[ \t{*]", re.M)
_JSX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)
_ALERT = re.compile(r"^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*$", re.I)
# ``!!! kind "title"``, ``??? kind``, ``???+ kind`` and ``=== "tab"``: the body is indented.
_CONTAINER = re.compile(
    r"^(?P<indent>[ \t]*)(?:(?P<marker>!!!|\?\?\?\+?)[ ]*(?P<kind>[\w-]+(?:[ ]+[\w-]+)*)"
    r"(?:[ ]+\"(?P<title>[^\"]*)\")?|===[!+]{0,2}[ ]+\"(?P<tab>[^\"]*)\")[ ]*$"
)
# ``/// kind | title`` up to a line of as many slashes: the body is not indented.
_BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)(?P<slashes>/{3,})[ ]*(?P<kind>[\w-]+)[ ]*(?:\|[ ]*(?P<title>.*?))?[ ]*$"
)
_BLOCK_END = re.compile(r"^[ \t]*(/{3,})[ ]*$")
# mkdocstrings' ``::: package.module``; a page with a closing ``:::`` has colon fences.
_MKDOCSTRINGS = re.compile(r"^(?P<indent>[ \t]*):::[ ]+[A-Za-z_][\w.:-]*[ ]*$")
_COLON_CLOSE = re.compile(r"^[ \t]*:{3,}[ \t]*$", re.M)
# ``--8<-- "file"``, or a bare ``--8<--`` around a block of file names.
_SNIPPET = re.compile(r"^[ \t]*-{1,}8<-{1,}[ ]*(?P<file>\"[^\"]*\"|'[^']*'|\S+)?[ ]*$")
# ``*[HTML]: text`` and ``[^label]: text``, each at a line's start.
_ABBREVIATION = re.compile(r"^(?P<indent>[ \t]*)\*\[(?P<term>[^\]]+)\]:[ ]*(?P<text>.*)$")
_FOOTNOTE = re.compile(r"^(?P<indent>[ \t]*)\[\^(?P<label>[^\]\s]+)\]:[ ]?")
# Inline: where a line may hold some; a heading line (whose ``{ #id }`` is its anchor).
_INLINE = re.compile(
    r"\{[:.#]|\{ +[.#]|\[\^|==|\+\+|\^\^|:(?:material|fontawesome|octicons|simple|lucide)-"
)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]")
_ATTRIBUTE = r"(?:\.[\w-]+|#[\w.:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[\w.%-]+))"
# One pass over a line, in this order: a code span (left as it is), a link whose text is
# only icons (``[:octicons-file-code-24:][source]``), an icon, an attribute list (``{: .c }``,
# ``{ #id key="v" }``), a footnote reference, ``==mark==``, ``^^insert^^``, ``++ctrl+c++``.
_INLINE_SYNTAX = re.compile(
    r"(?P<code>(?P<ticks>`+)(?!`).*?(?<!`)(?P=ticks)(?!`))"
    rf"|(?P<iconlink>\[[ \t]*(?:{_ICON}[ \t]*)+\](?:\[[^\]\n]*\]|\([^)\n]*\))?)"
    rf"|(?P<icon>{_ICON})"
    # (the lookbehind: blanks are tried from a run's start only, or a long run costs its square)
    rf"|(?P<attributes>(?<![ \t])[ \t]*"
    rf"(?:\{{:[^{{}}\n]*\}}|\{{[ ]*{_ATTRIBUTE}(?:[ ]+{_ATTRIBUTE})*[ ]*\}}))"
    r"|\[\^(?P<footnote>[^\]\s]+)\]"
    r"|==(?P<mark>[^\s=](?:[^=\n]*[^\s=])?)=="
    r"|\^\^(?P<insert>[^\s^](?:[^^\n]*[^\s^])?)\^\^"
    r"|\+\+(?P<keys>[\w-]+(?:\+[\w-]+)*)\+\+"
)
_ANCHOR = re.compile(r"#([\w.:-]+)")
# Blocks that only wrap their body (no title shown); the others are admonitions or tabs.
_WRAPPERS = frozenset({"html", "define", "caption", "figure-caption", "table-caption", "markdown"})
_UNTITLED = frozenset({"admonition", "details", "tab"})
_MAX_DEPTH = 16


@dataclass
class _Page:
    mkdocstrings: bool  # ``::: name`` is mkdocstrings' (no colon fence closes in the page)
    anchors: dict[int, str] = field(default_factory=dict)


def unfold(raw: str, *, mdx: bool = False) -> tuple[str, dict[int, str]]:
    """The dialects' syntax in ``raw`` rewritten as CommonMark, line for line.

    Args:
        raw: The page.
        mdx: The page is MDX: its ESM blocks and JSX comments are dropped too.

    Returns:
        The text, with as many lines as ``raw``, and the anchors that attribute lists give
        top-level headings (``# Title { #id }``), by the heading's line index (from 0).
    """
    if "\r" in raw:  # line ends as CommonMark counts them (markdown-it does the same)
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if mdx:
        raw = _without_mdx(raw)
    if not _has_syntax(raw):
        return raw, {}
    page = _Page(mkdocstrings=_COLON_CLOSE.search(raw) is None)
    lines = _unfold(raw.split("\n"), page, 0)
    return "\n".join(lines), page.anchors


def _has_syntax(raw: str) -> bool:
    return _BLOCK_START.match(raw) is not None or _SYNTAX.search(raw) is not None


def _without_mdx(raw: str) -> str:
    """``raw`` without MDX's ``import``/``export`` blocks (up to the next blank line, as MDX
    reads them) and ``{/* comments */}``, each dropped line left blank."""
    raw = _JSX_COMMENT.sub(lambda comment: "\n" * comment.group(0).count("\n"), raw)
    if _ESM.search(raw) is None:
        return raw
    lines = raw.split("\n")
    fence: tuple[str, int] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        if fence is not None:
            if _closes(line, fence):
                fence = None
        elif found := _FENCE.match(line):
            fence = (found.group(1)[0], len(found.group(1)))
        elif _ESM.match(line):
            while index < len(lines) and lines[index].strip():
                lines[index] = ""
                index += 1
            continue
        index += 1
    return "\n".join(lines)


def _closes(line: str, fence: tuple[str, int]) -> bool:
    """Whether ``line`` closes a code fence of this character and length."""
    found = _FENCE.match(line)
    return (
        found is not None
        and found.group(1)[0] == fence[0]
        and len(found.group(1)) >= fence[1]
        and not line[found.end() :].strip()
    )


def _unfold(lines: list[str], page: _Page, depth: int) -> list[str]:
    out: list[str] = []
    fence: tuple[str, int] | None = None
    blocks: list[int] = []  # the open ``///`` blocks' slash counts
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        index += 1
        if fence is not None:
            out.append(line)
            if _closes(line, fence):
                fence = None
            continue
        found = _QUOTE.match(line)
        if found and depth < _MAX_DEPTH:  # a quote's lines read without their markers
            end = index
            while end < count and _QUOTE.match(lines[end]):
                end += 1
            markers, inner = [], []
            for part in lines[index - 1 : end]:
                marker = _QUOTE.match(part).group(0)  # type: ignore[union-attr]
                markers.append(marker)
                inner.append(part[len(marker) :])
            alert = _ALERT.match(inner[0])
            if alert:  # GitHub's alerts: ``> [!NOTE]``
                inner[0] = alert.group(1).capitalize() + ":"
            inner = _unfold(inner, page, depth + 1)
            out.extend(
                (m + part if part else m.rstrip()) for part, m in zip(inner, markers, strict=True)
            )
            index = end
            continue
        found = _FENCE.match(line)
        if found:
            fence = (found.group(1)[0], len(found.group(1)))
            out.append(line)
            continue
        found = _CONTAINER.match(line)
        if found and depth < _MAX_DEPTH:
            end = _body_end(lines, index, _width(found.group("indent")) + 4)
            body = _unfold([_outdent(part) for part in lines[index:end]], page, depth + 1)
            if found.group("tab") is not None:
                title: str | None = _inline(found.group("tab"), None, page)
            else:
                title = found.group("title")
                if title is not None:
                    title = _inline(title, None, page)
                else:
                    title = found.group("kind").split()[0].replace("-", " ").capitalize()
            first = next((n for n, part in enumerate(body) if part.strip()), None)
            if first is None or not title:
                out.append("")
            elif first == 0:
                out.append(found.group("indent") + _titled(title))
            else:  # on the blank line above the body's text, so that the two read as one
                out.append("")
                body[first - 1] = found.group("indent") + _titled(title)
            out.extend(body)
            index = end
            continue
        found = _BLOCK.match(line)
        if found:
            kind = found.group("kind").lower()
            title = found.group("title")
            if kind in _WRAPPERS:
                title = None
            elif not title and kind not in _UNTITLED:
                title = kind.replace("-", " ").capitalize()
            out.append("")
            blocks.append(len(found.group("slashes")))
            # The block's options: indented YAML right under its header.
            limit = _width(found.group("indent")) + 4
            while index < count and lines[index].strip() and _width(lines[index]) >= limit:
                out.append("")
                index += 1
            while index < count and not lines[index].strip():
                out.append("")
                index += 1
            if title:  # just above the body's text, so that the two read as one
                out[-1] = found.group("indent") + _titled(title)
            continue
        found = _BLOCK_END.match(line)
        if found and blocks and len(found.group(1)) == blocks[-1]:
            blocks.pop()
            out.append("")
            continue
        found = _MKDOCSTRINGS.match(line) if page.mkdocstrings else None
        if found:
            end = _body_end(lines, index, _width(found.group("indent")) + 1)
            out.extend("" for _ in range(index - 1, end))
            index = end
            continue
        found = _SNIPPET.match(line)
        if found:
            out.append("")
            if found.group("file") is None:  # a block of file names up to the next marker
                close = next(
                    (n for n in range(index, min(count, index + 50)) if _bare_snippet(lines[n])),
                    None,
                )
                if close is not None:
                    out.extend("" for _ in range(index, close + 1))
                    index = close + 1
            continue
        found = _ABBREVIATION.match(line)
        if found:
            out.append(f"{found.group('indent')}{found.group('term')}: {found.group('text')}")
            continue
        found = _FOOTNOTE.match(line)
        if found:
            line = f"{found.group('indent')}[{found.group('label')}] {line[found.end() :]}"
        if _INLINE.search(line):
            line = _inline(line, len(out) if depth == 0 else None, page)
        out.append(line)
    return out


def _titled(title: str) -> str:
    title = title.strip()
    return title if not title or title[-1] in ":.?!" else title + ":"


def _width(text: str) -> int:
    """Columns of leading blanks (a tab to the next multiple of four)."""
    width = 0
    for char in text:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _outdent(line: str) -> str:
    """``line`` four columns further left (a body line of a container)."""
    rest = line.lstrip(" \t")
    width = _width(line)
    return " " * (width - 4) + rest if width > 4 else rest


def _body_end(lines: list[str], start: int, indent: int) -> int:
    """Where the body that starts at ``start``, indented ``indent`` columns, ends: before
    the first line indented less that is not blank (trailing blank lines are not in it)."""
    end = start
    for position in range(start, len(lines)):
        line = lines[position]
        if not line.strip():
            continue
        if _width(line) < indent:
            break
        end = position + 1
    return end


def _bare_snippet(line: str) -> bool:
    found = _SNIPPET.match(line)
    return found is not None and found.group("file") is None


def _inline(line: str, line_index: int | None, page: _Page) -> str:
    """The inline syntax of one line rewritten, outside its code spans."""
    heading = line_index if line_index is not None and _HEADING.match(line) else None

    def rewrite(found: re.Match[str]) -> str:
        if found.group("code") is not None:
            return found.group(0)
        attributes = found.group("attributes")
        if attributes is not None:
            anchor = _ANCHOR.search(attributes) if heading is not None else None
            if anchor is not None and heading is not None:
                page.anchors[heading] = anchor.group(1)
            return ""
        if found.group("footnote") is not None:
            return f"[{found.group('footnote')}]"
        for kept in ("mark", "insert"):
            if found.group(kept) is not None:
                return found.group(kept)
        keys = found.group("keys")
        if keys is not None:
            return "+".join(key.capitalize() for key in keys.split("+"))
        return ""  # an icon, or a link of icons only

    return _INLINE_SYNTAX.sub(rewrite, line)
