"""One malformed result is skipped and counted, never the whole page (issue #9 §2).

Each of the newer web connectors validates its results one by one: a result whose field has
the wrong type (a list where a URL belongs) is left out and counted in
``metadata["skipped"]``; the good results still arrive, in every result shape.
"""

from __future__ import annotations

from typing import Any

import pytest
import respx

from textsearch import (
    BraveTextSearch,
    ExaTextSearch,
    ResponseFormatError,
    SearxngTextSearch,
    TavilyTextSearch,
)

KEY = "k" * 24
GOOD = {"title": "Good", "url": "https://good.example/a", "content": "good text"}
BAD = {"title": "Bad", "url": ["not", "a", "url"], "content": "bad text"}


def _brave(items: list[Any]) -> tuple[Any, str, str, dict[str, Any]]:
    rows = [{**i, "description": i["content"]} for i in items]
    body = {"type": "search", "web": {"type": "search", "results": rows}}
    return (
        BraveTextSearch(KEY, max_retries=0),
        "GET",
        "https://api.search.brave.com/res/v1/web/search",
        body,
    )


def _tavily(items: list[Any]) -> tuple[Any, str, str, dict[str, Any]]:
    body = {"query": "q", "results": items, "response_time": 0.5}
    return TavilyTextSearch(KEY, max_retries=0), "POST", "https://api.tavily.com/search", body


def _exa(items: list[Any]) -> tuple[Any, str, str, dict[str, Any]]:
    rows = [{**i, "id": str(n), "text": i["content"]} for n, i in enumerate(items)]
    body = {"requestId": "r1", "results": rows}
    return ExaTextSearch(KEY, max_retries=0), "POST", "https://api.exa.ai/search", body


def _searxng(items: list[Any]) -> tuple[Any, str, str, dict[str, Any]]:
    body = {"query": "q", "number_of_results": 2, "results": items}
    search = SearxngTextSearch("http://searx.test", max_retries=0, max_pages=1)
    return search, "GET", "http://searx.test/search", body


MAKERS = [_brave, _tavily, _exa, _searxng]


@pytest.mark.parametrize("make", MAKERS, ids=lambda m: m.__name__.strip("_"))
def test_a_malformed_result_is_skipped_and_counted(make: Any) -> None:
    search, method, url, body = make([BAD, GOOD])
    with respx.mock() as mock:
        mock.route(method=method, url__startswith=url).respond(200, json=body)
        natives = search.get_search_results_sync("q", top=5)
        texts = search.get_text_search_results_sync("q", top=5)
    assert [r.link for r in texts] == ["https://good.example/a"]
    assert len(natives) == 1
    assert natives.metadata["skipped"] == 1
    assert texts.metadata["skipped"] == 1


@pytest.mark.parametrize("make", MAKERS, ids=lambda m: m.__name__.strip("_"))
def test_a_page_of_nothing_but_malformed_results_is_a_format_error(make: Any) -> None:
    search, method, url, body = make([BAD, BAD])
    with respx.mock() as mock:
        mock.route(method=method, url__startswith=url).respond(200, json=body)
        with pytest.raises(ResponseFormatError):
            search.get_search_results_sync("q", top=5)
