"""Jupyter notebooks (``.ipynb``) read into passages, with the standard library's JSON.

A notebook is read as the Markdown document it shows: Markdown cells as Markdown (their
headings give sections, with Markdown's anchors), each code cell as a fenced code block kept
exactly, and each text output (a stream, a ``text/plain`` result) as a code block of its
own, cut to a size bound. Images, HTML and other outputs are dropped, and so are error
tracebacks (terminal colour codes around a stack). A raw cell shows what nbconvert and
nbsphinx make of it (`_raw_cell`). Links never carry a line number: the lines of the JSON
file mean nothing to a reader.
"""

from __future__ import annotations

import json
import re
from typing import Any

from textsearch.documents._common import NotRead
from textsearch.documents._passages import Passage

__all__ = ["MAX_OUTPUT_CHARS", "notebook_markdown", "read_notebook"]

#: Characters kept of one output (a long log is cut, with a note of how much was left out).
MAX_OUTPUT_CHARS = 2000
_BACKTICKS = re.compile(r"`{3,}")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # ASCII punctuation: each can be escaped
# A raw cell's format (its ``raw_mimetype``) -> how the document shows it.
_RAW_FORMATS = {
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/restructuredtext": "rst",
    "text/x-rst": "rst",
    "text/html": "html",
}


def read_notebook(text: str, limit: int) -> tuple[str | None, list[Passage]]:
    """``(title, passages)`` of a notebook's JSON text.

    Raises:
        NotRead: Not JSON, not a notebook, or nested too deep to read.
    """
    try:
        notebook = json.loads(text)
    except RecursionError:
        raise NotRead("notebook nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise NotRead(f"notebook is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError:
        raise NotRead("notebook is not valid JSON") from None
    if not isinstance(notebook, dict):
        raise NotRead("not a notebook (no cells)")
    markdown = notebook_markdown(notebook)
    from textsearch.documents._split import split_document

    title, passages = split_document(markdown, ".md", limit=limit)
    metadata = notebook.get("metadata")
    named = metadata.get("title") if isinstance(metadata, dict) else None
    if isinstance(named, str) and named.strip():
        title = named.strip()
    return title, [Passage(p.heading, p.anchor, 1, p.text) for p in passages]


def notebook_markdown(notebook: dict[str, Any]) -> str:
    """The Markdown document a notebook shows (nbformat 4, and 3's worksheets)."""
    cells = notebook.get("cells")
    if cells is None and isinstance(notebook.get("worksheets"), list):  # nbformat 3
        cells = [c for sheet in notebook["worksheets"] for c in _list(_get(sheet, "cells"))]
    if not isinstance(cells, list):
        raise NotRead("not a notebook (no cells)")
    language = _language(notebook)
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _text(cell.get("source", cell.get("input")))
        if kind in ("markdown", "heading"):
            if kind == "heading":  # nbformat 3's heading cells
                found = cell.get("level")
                level = found if isinstance(found, int) else 1
                source = "#" * max(1, min(level, 6)) + " " + source.strip()
            if source.strip():
                parts.append(source.strip("\n"))
        elif kind == "code":
            if source.strip():
                parts.append(_fenced(source, language))
            for output in _list(cell.get("outputs")):
                shown = _output_text(output)
                if shown:
                    parts.append(_fenced(shown, ""))
        elif kind == "raw" and source.strip():
            shown = _raw_cell(source, cell.get("metadata"))
            if shown:
                parts.append(shown)
    return "\n\n".join(parts) + "\n"


def _raw_cell(source: str, metadata: object) -> str:
    """The Markdown a raw cell adds to the document, by its format.

    nbconvert passes a raw cell through untouched to the outputs of its format, and nbsphinx
    reads one in reStructuredText as part of the page (a ``toctree``, a note, a role): so a
    Markdown cell is Markdown, a reStructuredText one a MyST ``{eval-rst}`` body, an HTML
    one its text, and one with no format its text exactly as typed (every output shows it).
    LaTeX, Python and other formats reach no reader: they add nothing.
    """
    named = _get(metadata, "raw_mimetype") or _get(metadata, "format")  # nbformat 3: format
    kind = _RAW_FORMATS.get(named.strip().lower(), "") if isinstance(named, str) else "plain"
    if kind == "markdown":
        return source.strip("\n")
    if kind == "rst":
        longest = max((len(m.group()) for m in _BACKTICKS.finditer(source)), default=2)
        fence = "`" * max(3, longest + 1)
        return f"{fence}{{eval-rst}}\n{source.strip(chr(10))}\n{fence}"
    if kind == "html":
        from textsearch._html import html_sections

        _, sections = html_sections(source)
        return _literal("\n\n".join(text for _, _, text in sections))
    return _literal(source) if kind == "plain" else ""


def _literal(text: str) -> str:
    """``text`` as Markdown that shows it exactly: each ASCII punctuation mark escaped, and
    no line indented (an indented line would be a code block); blank lines still part it."""
    lines = (_PUNCTUATION.sub(r"\\\1", line.strip()) for line in text.strip().splitlines())
    return "\n".join(lines)


def _output_text(output: object) -> str:
    if not isinstance(output, dict):
        return ""
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text"))
    elif kind in ("execute_result", "display_data", "pyout"):
        data = output.get("data")
        text = _text(data.get("text/plain")) if isinstance(data, dict) else ""
        if not text:
            text = _text(output.get("text"))  # nbformat 3 keeps text/plain here
    else:
        return ""  # errors (tracebacks in colour codes) and anything else
    text = _CONTROLS.sub("", _ANSI.sub("", text)).strip("\n")
    if len(text) > MAX_OUTPUT_CHARS:
        cut = text.rfind("\n", 0, MAX_OUTPUT_CHARS)
        cut = cut if cut > MAX_OUTPUT_CHARS // 2 else MAX_OUTPUT_CHARS
        text = f"{text[:cut]}\n… ({len(text) - cut} more characters of output)"
    return text


def _fenced(code: str, language: str) -> str:
    """A fenced code block holding ``code`` exactly: the fence is longer than any run of
    backticks inside."""
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(code)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code.rstrip(chr(10))}\n{fence}"


def _language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata")
    if not isinstance(metadata, dict):
        return ""
    for key in ("kernelspec", "language_info"):
        value = metadata.get(key)
        name = value.get("language") or value.get("name") if isinstance(value, dict) else None
        if isinstance(name, str) and re.fullmatch(r"[\w+#.-]{1,30}", name):
            return name.lower()
    return ""


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _get(value: object, key: str) -> object:
    return value.get(key) if isinstance(value, dict) else None
