"""Shared test doubles for the plugin tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textsearch import SearchOptions, SearchResults, TextSearchResult

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Article:
    """Native result of the third-party connector: a plain dataclass with ``url``, no ``link``."""

    title: str
    body: str
    url: str
    lang: str


class ThirdPartySearch:
    """A connector written against the TextSearch protocol only (no BaseTextSearch)."""

    max_top = 20
    open_world = True

    def __init__(self, articles: list[Article]) -> None:
        self.articles = articles
        self.calls: list[tuple[str, SearchOptions]] = []

    def _hits(self, query: str, options: SearchOptions | None, kwargs: Any) -> list[Article]:
        opts = options if options is not None else SearchOptions()
        if kwargs:
            opts = opts.with_updates(**kwargs)
        self.calls.append((query, opts))
        words = query.lower().split()
        hits = [a for a in self.articles if all(w in f"{a.title} {a.body}".lower() for w in words)]
        for clause in opts.filter.clauses if opts.filter else ():
            hits = [a for a in hits if getattr(a, clause.field_name, None) == clause.value]
        return hits[opts.skip : opts.skip + opts.top]

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        return self.search_sync(query, options, **kwargs)

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return self.get_text_search_results_sync(query, options, **kwargs)

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Article]:
        return self.get_search_results_sync(query, options, **kwargs)

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        return SearchResults([a.body for a in self._hits(query, options, kwargs)])

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return SearchResults(
            [TextSearchResult(a.title, a.body, a.url) for a in self._hits(query, options, kwargs)]
        )

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Article]:
        return SearchResults(self._hits(query, options, kwargs))


ARTICLES = [
    Article(
        "Retry with backoff",
        "Retry failed calls with exponential backoff.",
        "https://a.example/retry",
        "en",
    ),
    Article(
        "Backoff en français", "Réessayer avec backoff exponentiel.", "https://b.example/fr", "fr"
    ),
    Article("Caching", "Cache responses for five minutes.", "https://a.example/cache", "en"),
]

DOCS = [
    {
        "name": "Retry guide",
        "value": "Use exponential backoff when a call fails.",
        "link": "https://kb.example/retry",
        "metadata": {"lang": "en"},
    },
    {
        "name": "Backoff on the blog",
        "value": "Backoff stories from the blog.",
        "link": "https://blog.example/backoff",
        "metadata": {"lang": "en"},
    },
    {
        "name": "Guide des reprises",
        "value": "Utiliser un backoff exponentiel.",
        "link": "https://kb.example/fr/retry",
        "metadata": {"lang": "fr"},
    },
]
