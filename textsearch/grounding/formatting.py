"""Turning search results into text for a model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from textsearch._types import SearchResults
from textsearch.errors import InvalidRequestError
from textsearch.grounding._fields import ResultFields, extract_fields

__all__ = ["format_results"]

Style = Literal["numbered"]


def _numbered(items: list[ResultFields], query: str | None) -> str:
    count = len(items)
    noun = "result" if count == 1 else "results"
    header = (
        f'Found {count} {noun} for "{query}":' if query is not None else f"Found {count} {noun}:"
    )
    blocks: list[str] = []
    for i, item in enumerate(items, start=1):
        prefix = f"{i}. "
        indent = " " * len(prefix)
        lines: list[str] = []
        first = item.name or item.value or item.link or ""
        lines.append(prefix + _one_line(first))
        if item.name and item.value:
            lines.append(indent + _one_line(item.value))
        if item.link:
            lines.append(f"{indent}URL: {item.link}")
        source = item.source
        if source:
            lines.append(f"{indent}Source: {source}")
        blocks.append("\n".join(lines))
    return header + "\n\n" + "\n\n".join(blocks)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def format_results(
    results: SearchResults[Any] | Iterable[Any],
    *,
    query: str | None = None,
    style: Style = "numbered",
) -> str:
    """Format results as text for a model.

    Accepts :class:`~textsearch.SearchResults` or a list of strings,
    :class:`~textsearch.TextSearchResult` or native result models. The default
    ``"numbered"`` style is::

        Found 2 results for "query":

        1. Title
           Snippet
           URL: https://...
           Source: display url or host

    and ``No results found for query: <query>`` when there is nothing.

    Raises:
        InvalidRequestError: Unknown style.
    """
    items = [extract_fields(r) for r in results]
    if not items:
        return f"No results found for query: {query}" if query is not None else "No results found."
    if style == "numbered":
        return _numbered(items, query)
    raise InvalidRequestError(f"unknown format style {style!r}")
