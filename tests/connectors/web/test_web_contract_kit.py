"""A web connector keeps the connector contract (``textsearch.testing``): Brave, on respx.

The mocked API serves the kit's corpus as Brave would: ``count`` results per page, ``offset``
in pages, ``site:`` operators in ``q`` honoured. Filters Brave cannot express must be refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import respx

from textsearch import BraveTextSearch
from textsearch.testing import ConnectorContract

KEY = "BSA-SECRET-brave-contract-0123456789"
URL = "https://api.search.brave.com/res/v1/web/search"
_SITE = re.compile(r"(?<!-)site:(\S+)")


def brave_answer(documents: Sequence[Mapping[str, Any]], request: httpx.Request) -> httpx.Response:
    params = request.url.params
    count, page = int(params.get("count", "20")), int(params.get("offset", "0"))
    sites = _SITE.findall(params.get("q", ""))
    hits = [
        d
        for d in documents
        if not sites or any((urlsplit(d["link"]).hostname or "").endswith(s) for s in sites)
    ]
    results = [
        {
            "type": "search_result",
            "title": d["title"],
            "url": d["link"],
            "description": d["text"],
            "meta_url": {"hostname": urlsplit(d["link"]).hostname},
            "language": "en",
        }
        for d in hits[page * count : (page + 1) * count]
    ]
    return httpx.Response(
        200,
        json={
            "type": "search",
            "query": {"original": params.get("q", ""), "more_results_available": False},
            "web": {"type": "search", "results": results, "family_friendly": True},
        },
    )


class TestBrave(ConnectorContract):
    @pytest.fixture(autouse=True)
    def _api(self) -> Iterator[None]:
        with respx.mock(assert_all_called=False) as mock:
            self.route = mock.get(URL)
            self.route.side_effect = lambda request: brave_answer(self.documents, request)
            self.failing_route = mock.get("https://brave.down.example/res/v1/web/search")
            self.failing_route.respond(
                500, json={"type": "ErrorResponse", "error": {"status": 500, "code": "X"}}
            )
            yield

    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        return BraveTextSearch(KEY, max_retry_wait=0.01)

    def make_failing_connector(self) -> Any:
        return BraveTextSearch(
            KEY, endpoint="https://brave.down.example/res/v1/web/search", max_retry_wait=0.01
        )

    def backend_calls(self) -> int:
        return int(self.route.call_count)
