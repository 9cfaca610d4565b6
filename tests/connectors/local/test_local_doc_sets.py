"""The markup readers on real documentation: a Sphinx project's reStructuredText (Flask), a
MyST project's Markdown (click) and Django's reStructuredText in ``.txt`` files.

The sets are the ``docs`` folders of released sdists, downloaded once into a cache folder by
``benchmarks/doc_sets.py`` (through pip); a test skips when its set cannot be had. Checked on
every file: no role, directive, adornment line or backtick literal is left in the text, the
section names are titles, and every line of every code block is in a passage, indentation
and all.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from textsearch.documents._blocks import Block
from textsearch.documents._split import format_of, split_document

pytest.importorskip("markdown_it")
pytest.importorskip("docutils")

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import doc_sets

ROLE = re.compile(r":[\w:.+-]+:`|\{[\w:.+-]+\}`")
DIRECTIVE = re.compile(r"^\s*\.\. [\w:.+-]+::", re.MULTILINE)
ADORNMENT = re.compile(r"^\s*([=\-~^\"'`#*+_:.])\1{3,}\s*$", re.MULTILINE)
BACKTICKS = re.compile(r"``[^`\n]+``|(?<!`)`[^`\n]+`(?!`)")


@pytest.fixture(scope="module", params=sorted(doc_sets.SETS))
def doc_set(request: pytest.FixtureRequest) -> tuple[str, Path]:
    try:
        return request.param, doc_sets.doc_set(request.param)
    except OSError as exc:
        pytest.skip(f"doc set {request.param} not available: {exc}")


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.suffix in (".md", ".rst", ".txt") and path.is_file():
            yield path


def _inline_literals(text: str, kind: str) -> list[str]:
    """Inline literals (``x``) of a reStructuredText file: markup they show is text."""
    if kind == "markdown":
        return []
    from textsearch.documents._rst import _parse

    found = _parse(text).findall(lambda n: n.tagname == "literal")
    return sorted((node.astext() for node in found), key=len, reverse=True)


def _code_blocks(text: str, kind: str) -> list[str]:
    """The code blocks of a file, found by the parsers themselves (not by the reader)."""
    if kind == "markdown":
        from markdown_it import MarkdownIt
        from mdit_py_plugins.colon_fence import colon_fence_plugin

        md = MarkdownIt("commonmark").use(colon_fence_plugin)
        blocks = []
        for token in md.parse(text):
            if token.type == "code_block" or (
                token.type == "fence" and not token.info.startswith("{")
            ):
                blocks.append(token.content)
            elif token.type == "fence" and token.info.startswith(("{code-block}", "{code}")):
                body = token.content.split("\n")
                while body and body[0].startswith(":"):
                    body.pop(0)
                blocks.append("\n".join(body))
        return blocks
    from textsearch.documents._rst import _parse

    document = _parse(text)
    return [node.astext() for node in document.findall(lambda n: n.tagname == "literal_block")]


@pytest.mark.timeout(900)
def test_no_markup_survives_and_code_is_kept_exactly(doc_set: tuple[str, Path]) -> None:
    name, root = doc_set
    problems: list[str] = []
    files = 0
    code_lines = 0
    for path in _files(root):
        raw = path.read_text(encoding="utf-8", errors="replace")
        kind = format_of(path.suffix, raw)
        if kind == "text":
            continue
        files += 1
        _, passages = split_document(raw, path.suffix)
        # docutils' code lines have tabs expanded and no trailing blanks; the reader keeps
        # the file's (tested in test_local_passages), so compare as docutils reads lines.
        text_lines = {line for p in passages for line in p.text.split("\n")}
        text_lines |= {line.expandtabs(8).rstrip() for line in text_lines}
        code = set()
        for block in _code_blocks(raw, kind):
            for line in block.rstrip("\n").split("\n"):
                if not line.strip():
                    continue
                code.add(line)
                code_lines += 1
                if line not in text_lines and line.rstrip() not in text_lines:
                    problems.append(f"{path.name}: code line lost or re-indented: {line!r}")
        prose = "\n".join(line for p in passages for line in p.text.split("\n") if line not in code)
        for literal in _inline_literals(raw, kind):
            prose = prose.replace(literal, " ")
        for label, pattern in (
            ("role", ROLE), ("directive", DIRECTIVE), ("adornment", ADORNMENT),
            ("backtick literal", BACKTICKS),
        ):  # fmt: skip
            for found in pattern.finditer(prose):
                problems.append(f"{path.name}: {label} left: {found.group(0)!r}")
        for passage in passages:
            heading = passage.heading or ""
            if ADORNMENT.fullmatch(heading) or ROLE.search(heading) or "`" in heading:
                problems.append(f"{path.name}: section named {heading!r}")
    assert files > 20, f"{name}: only {files} files read"
    assert code_lines > 100, f"{name}: only {code_lines} code lines found"
    assert not problems, f"{name}: {len(problems)} problems:\n" + "\n".join(problems[:40])


def _docutils_blocks(body: str, offset: int) -> list[object]:
    from textsearch.documents import _rst

    document = _rst._parse(body)
    walker = _rst._Walker(document, body, offset, False)
    for child in document.children:
        walker.walk(child)
    return list(walker.blocks)


def _top_level_chunks(text: str) -> Iterator[str]:
    """A reStructuredText file cut before each unindented line that follows a blank one:
    the shapes a MyST ``{eval-rst}`` body can have, by the thousand."""
    lines = text.split("\n")
    chunk: list[str] = []
    for number, line in enumerate(lines):
        if chunk and line[:1].strip() and not lines[number - 1].strip():
            yield "\n".join(chunk)
            chunk = []
        chunk.append(line)
    yield "\n".join(chunk)


@pytest.mark.timeout(900)
def test_bodies_read_without_docutils_read_as_docutils_reads_them(
    doc_set: tuple[str, Path],
) -> None:
    # What _rst reads without docutils (MyST {eval-rst} bodies) must be what the docutils
    # walk makes of the same text: checked on every body of the MyST set and on every
    # top-level chunk of the reStructuredText sets.
    from textsearch.documents import _markdown, _rst

    name, root = doc_set
    bodies: list[tuple[str, int]] = []

    def record(body: str, offset: int) -> list[Block]:
        bodies.append((body, offset))
        return []

    for path in _files(root):
        raw = path.read_text(encoding="utf-8", errors="replace")
        kind = format_of(path.suffix, raw)
        if kind == "markdown":
            _markdown.markdown_sections(raw, record)
        elif kind == "rst":
            bodies.extend((chunk, 7) for chunk in _top_level_chunks(raw))
    fast = 0
    differ: list[str] = []
    for body, offset in bodies:
        blocks = _rst._directives_only(body, offset)
        if blocks is None:
            continue
        fast += 1
        if blocks != _docutils_blocks(body, offset):
            differ.append(body[:300])
    assert bodies and fast > len(bodies) // 4, f"{name}: {fast} of {len(bodies)} read fast"
    assert not differ, f"{name}: {len(differ)} differ, the first:\n" + differ[0]
