"""MyST ``{eval-rst}`` bodies simple enough to read without docutils (most of them).

Reading one with docutils means importing and setting it up (~40 ms, most of a cold MyST
read); what is read here is what the parse would give (tests compare the two).
"""

from __future__ import annotations

import re

from textsearch.documents import _blocks
from textsearch.documents import _rst_sniff as base
from textsearch.documents._blocks import Block, Label, directive_label, only_shows, put_label
from textsearch.documents._references import role_text
from textsearch.documents._rst_limits import LINE_LIMIT

__all__ = ["_DOCUTILS_DIRECTIVES", "_DOCUTILS_ROLES", "_directives_only"]


# -- MyST bodies simple enough to read without docutils ---------------------------------------

# A name as docutils takes one (words joined by single "-._+:"): ".. a__b::" is a comment.
_DIRECTIVE_START = re.compile(r"\.\. ([A-Za-z0-9]+(?:[-._+:][A-Za-z0-9]+)*)::(?: |$)")
_OPTION = re.compile(r":[A-Za-z][\w-]*:(?: |$)")
_BULLET = re.compile(r"([-*+])( +)(?=\S)")

# The directives and roles docutils itself knows (0.20 to 0.23, English names): any other
# name reads as the generic directive or role above. Listed, not asked: asking imports
# docutils, which is what reading a body without it saves (most of a cold MyST read).
# tests/connectors/test_local_passages.py checks these against the installed docutils.
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
    if any(len(line) > LINE_LIMIT for line in lines):
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
    kind = base._directive_kind(name)
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
    if kind == "generic" and not _blocks.option_labels(name).keys().isdisjoint(names):
        return -1  # an option the page shows (``:type:``): docutils reads it as text
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
        text = _blocks.shown_code(argument, "\n".join(content))
        if text.strip():
            blocks.append(Block(content_line + 1, text, True))
    elif kind == "generic":
        if name == "only" and not only_shows(argument):
            return end  # not on the HTML pages (``.. only:: latex``)
        label = directive_label(name, argument)
        start = len(blocks)
        if label is not None:
            words = _plain_inline(label.text)
            if words is None:
                return -1
            label = Label(words, label.rest, label.alone)
            argument = label.rest
        if argument and name.rpartition(":")[2] not in base._ARGUMENT_NOT_TEXT:
            words = _plain_inline(argument)
            if words is None:
                return -1
            if words.strip():
                blocks.append(Block(lineno, words))
        if content and (
            depth >= _MAX_FAST_DEPTH or not _read_fast(content, content_line, blocks, depth + 1)
        ):
            return -1  # fmt: skip
        if label is not None:
            put_label(blocks, start, label, lineno)
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
            if (base._directive_kind(name) is not None or name in _DOCUTILS_DIRECTIVES
                    or not argument or name.rpartition(":")[2] in base._ARGUMENT_NOT_TEXT
                    or not all(_OPTION.match(text.lstrip()) and text[:1] == " "
                               for text in item[1:])):  # fmt: skip
                return -1
            label = directive_label(name, argument)
            text = _plain_inline(argument if label is None else label.rest)
            words = _plain_inline(label.text) if label is not None else None
            if label is not None and (words is None or text is None):
                return -1
            if label is not None and not label.alone and text is not None and not text.strip():
                return -1  # a tab with no text: docutils shows nothing of the item
            if words is not None and text is not None:
                text = f"{words}: {text}" if text.strip() else f"{words}."
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
            out.append(role_text(text, role))
        position = end
    rest = line[position:]
    if _PLAIN_RUN.fullmatch(rest) is None:
        return None
    out.append(rest)
    return "".join(out)
