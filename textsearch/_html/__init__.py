"""HTML to readable text, and to sections by heading.

Used by the local index (``.html`` files) and by full-page fetching. Two interchangeable
converters produce the same output:

* ``_fast``: selectolax (lexbor, a C HTML5 parser; the ``html`` extra) parses the page
  once, drops unwanted subtrees in C, and one Python walk over what is left builds the
  sections: 1.5-2x less CPU than the regex pass on documentation pages, most of what is
  left being the Python walk over text nodes (docs/performance.md);
* ``_regex``: one regular-expression pass over the tags, no dependency; the fallback
  when selectolax is not installed.

This module holds what both share (the tag classes, how text is tidied, how the main
content is chosen) and picks the converter on first use, so ``import textsearch`` never
loads a parser.
"""

from __future__ import annotations

from collections.abc import Callable

from textsearch._html._common import Sections, decode_html

__all__ = ["Sections", "decode_html", "html_sections", "html_to_text", "use_parser"]

_converter: Callable[[str | bytes], Sections] | None = None


def use_parser(name: str | None) -> str:
    """Pick the converter: ``"selectolax"``, ``"regex"``, or ``None`` for the best installed.

    Returns the name of the one in use. For benchmarks and tests; raises ``ImportError``
    when ``"selectolax"`` is asked for and is not installed.
    """
    global _converter
    if name == "regex":
        from textsearch._html._regex import html_sections as regex

        _converter = regex
        return "regex"
    if name not in (None, "selectolax"):
        raise ValueError(f"unknown HTML parser {name!r}: use 'selectolax' or 'regex'")
    try:
        from textsearch._html._fast import html_sections as fast
    except ImportError:
        if name == "selectolax":
            raise
        return use_parser("regex")
    _converter = fast
    return "selectolax"


def html_sections(html: str | bytes) -> Sections:
    """Return ``(title, [(heading, anchor, text), ...])`` for an HTML document.

    Bytes are decoded as a browser would (`decode_html`); giving the file's bytes
    saves decoding them in Python when selectolax is installed.

    Sections start at each ``<h1>``..``<h6>``; ``anchor`` is the heading's ``id`` (or that of an
    anchor inside it or right before it), else ``None``. Scripts, styles and page chrome are
    dropped; when ``<main>``/``<article>`` holds a fair share of the text, only it is kept.
    Entities are decoded; no markup is left in the text.
    """
    if _converter is None:
        use_parser(None)
    assert _converter is not None
    return _converter(html)


def html_to_text(html: str) -> tuple[str | None, str]:
    """Return ``(title, text)`` for an HTML document.

    The title is the ``<title>``, else the first heading. The text drops scripts, styles,
    navigation and other page chrome; when the page marks its main content with ``<main>``
    or ``<article>`` and that holds a fair share of the text, only that is kept. Headings
    stay in the text, each on its own line.
    """
    title, sections = html_sections(html)
    parts: list[str] = []
    for heading, _, text in sections:
        if heading:
            parts.append(heading)
        if text:
            parts.append(text)
    return title, "\n\n".join(parts)
