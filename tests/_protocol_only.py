"""A connector written against the ``TextSearch`` protocol alone, shared by the tests.

``tests/test_base.py`` checks it at run time; ``tests/typing/check_keywords.py`` checks with
mypy that its untyped ``**kwargs: Any`` still satisfy the protocol's typed shortcuts.
"""

from __future__ import annotations

from typing import Any

from textsearch import SearchOptions, SearchResults, TextSearchResult


class ProtocolOnly:
    """A connector written against the Protocol alone, without the base class."""

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        return SearchResults([query])

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return SearchResults([TextSearchResult(value=query)])

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Any]:
        return SearchResults([query])

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        return SearchResults([query])

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return SearchResults([TextSearchResult(value=query)])

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Any]:
        return SearchResults([query])
