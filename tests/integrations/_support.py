"""Shared fixtures of the adapter tests: a recording connector and a preset-filtered function."""

from __future__ import annotations

from typing import Any

from textsearch import TextSearchFilter
from textsearch.errors import TextSearchError
from textsearch.plugins import SearchFunction, SearchParameter, create_search_function
from textsearch.testing import StaticTextSearch

KB_LINK = "https://kb.example/retry"
OTHER_LINK = "https://evil.example/retry"

DOCUMENTS: list[dict[str, Any]] = [
    {
        "name": "Retry guide",
        "value": "Retry with exponential backoff and jitter.",
        "link": KB_LINK,
        "metadata": {"tags": ["ops"]},
    },
    {
        "name": "Retry forever",
        "value": "Retry forever without backoff.",
        "link": OTHER_LINK,
    },
]

#: The developer's preset: only the knowledge base, whatever the model asks.
PRESET = TextSearchFilter().equal_to("site", "kb.example")

#: A tool call that tries to widen the preset with arguments the schema does not declare.
HOSTILE_ARGUMENTS: dict[str, Any] = {
    "query": "retry",
    "filter": {"site": "evil.example"},
    "site": "evil.example",
}


def make_search(error: TextSearchError | None = None) -> StaticTextSearch:
    return StaticTextSearch(DOCUMENTS, match="any", error=error)


def preset_function(search: StaticTextSearch, **kwargs: Any) -> SearchFunction:
    """A function that returns titles and links, restricted to the knowledge base."""
    return create_search_function(search, kind="text_search_results", filter=PRESET, **kwargs)


def site_parameter_function(search: StaticTextSearch) -> SearchFunction:
    """A function with a declared ``site`` parameter: it can only narrow the preset."""
    return preset_function(
        search,
        parameters=[
            SearchParameter("query", "What to search for."),
            SearchParameter("site", "Only results from this site.", filter_field="site"),
        ],
    )


def assert_preset_kept(search: StaticTextSearch) -> None:
    """Every search the connector ran carried the preset filter, unwidened."""
    for recorded in search.calls:
        assert recorded.options.filter is not None
        clauses = list(recorded.options.filter)
        assert clauses[0] == next(iter(PRESET)), recorded


class PathRecordingSearch(StaticTextSearch):
    """Records which path served each search: the blocking or the async one."""

    def __init__(self) -> None:
        super().__init__(DOCUMENTS, match="any")
        self.paths: list[str] = []

    async def get_text_search_results(self, *args: Any, **kwargs: Any) -> Any:
        self.paths.append("async")
        return await super().get_text_search_results(*args, **kwargs)

    def get_text_search_results_sync(self, *args: Any, **kwargs: Any) -> Any:
        self.paths.append("sync")
        return super().get_text_search_results_sync(*args, **kwargs)
