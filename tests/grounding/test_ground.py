from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import pytest

from textsearch import (
    InvalidRequestError,
    ProviderError,
    SearchOptions,
    SearchResults,
    TextSearch,
    TextSearchResult,
)
from textsearch.grounding import (
    ANSWER_WITH_CITATIONS_AND_DATES,
    Budget,
    GroundedPrompt,
    ground,
    ground_sync,
)
from textsearch.testing import StaticDocument, StaticTextSearch

DOCS = [
    {"name": "Retry guide", "value": "Retry with backoff.", "link": "https://kb.example/retry"},
    {
        "name": "Retry guide (copy)",
        "value": "Retry with backoff again.",
        "link": "http://kb.example/retry/",
    },
    {
        "name": "Retry budget",
        "value": "Retry at most three times. " * 20,
        "link": "https://kb.example/budget",
    },
    {"name": "Retry FAQ", "value": "Retry questions.", "link": "https://kb.example/faq"},
]


class DatedPage(dict[str, Any]):
    """A native result shape some third-party connector might return."""


class ProtocolOnly:
    """A TextSearch implemented directly (no BaseTextSearch), with opaque native results."""

    def __init__(self, native: list[Any], text: list[TextSearchResult]) -> None:
        self.native = native
        self.text = text
        self.calls: list[str] = []

    async def search(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[str]:
        raise AssertionError("not used")

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[TextSearchResult]:
        self.calls.append("text")
        return SearchResults(list(self.text), metadata={"via": "text"})

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[Any]:
        self.calls.append("native")
        if self.native is NotImplemented:  # type: ignore[comparison-overlap]
            raise NotImplementedError
        assert options is not None and options.top == 2
        return SearchResults(list(self.native), metadata={"via": "native"})

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[str]:
        raise AssertionError("not used")

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[TextSearchResult]:
        self.calls.append("text_sync")
        return SearchResults(list(self.text))

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[Any]:
        self.calls.append("native_sync")
        return SearchResults(list(self.native))


def test_ground_sync_numbers_dedupes_and_renders() -> None:
    search = StaticTextSearch(DOCS)
    grounded = ground_sync(search, "retry", top=4)
    assert isinstance(grounded, GroundedPrompt) and str(grounded) == grounded.prompt
    assert search.calls[0].options.top == 4
    # The copy at the same URL is one source.
    assert [s.title for s in grounded.sources] == ["Retry guide", "Retry budget", "Retry FAQ"]
    assert grounded.references == (
        "[1] Retry guide - https://kb.example/retry\n"
        "[2] Retry budget - https://kb.example/budget\n"
        "[3] Retry FAQ - https://kb.example/faq"
    )
    assert (
        "[1] Retry guide\nURL: https://kb.example/retry\nRetry with backoff.\n" in grounded.prompt
    )
    assert "<<<BEGIN SEARCH DATA id=" in grounded.prompt
    assert grounded.prompt.endswith("Question: retry\nAnswer:")
    assert grounded.references_for("It backs off [1] and FAQ [3] [8].") == (
        "[1] Retry guide - https://kb.example/retry\n[3] Retry FAQ - https://kb.example/faq"
    )


def test_budget_drops_sources_from_prompt_and_citations() -> None:
    search = StaticTextSearch(DOCS)
    full = ground_sync(search, "retry", top=4, budget=Budget())
    assert "[truncated]" not in full.prompt and len(full.citations) == 3
    small = ground_sync(search, "retry", top=4, budget=Budget(max_chars=len(full.prompt) - 5))
    assert len(small.prompt) <= len(full.prompt) - 5
    assert small.dropped == 1 and [s.number for s in small.sources] == [1, 2]
    assert "[3]" not in small.prompt.split("<<<BEGIN")[1]
    cut = ground_sync(search, "retry", top=4, budget=Budget(max_result_chars=60))
    assert (
        cut.truncated == [2]
        and "\nRetry at most three times. Retry at most three [truncated]\n" in cut.prompt
    )


def test_custom_mapper_of_a_base_connector_is_respected() -> None:
    search = StaticTextSearch(
        [
            StaticDocument(
                name="n", value="v", link="https://x.example/", metadata={"date": "2020-01-01"}
            )
        ],
        text_search_result_mapper=lambda d: TextSearchResult(f"Mapped {d.name}", d.value, d.link),
        match="always",
    )
    grounded = ground_sync(
        search, "anything", template="{#results}{index} {name}\n{/results}", fence=False
    )
    assert grounded.prompt == "1 Mapped n\n"


@pytest.mark.anyio
async def test_protocol_only_connector_native_fields_and_dates() -> None:
    native = [
        DatedPage(
            name="Fresh",
            url="https://n.example/a",
            snippet="New.",
            date_published="2025-02-01",
            site_name="N",
        ),
    ]
    search = ProtocolOnly(native, [TextSearchResult("unused", "unused", None)])
    assert isinstance(search, TextSearch)
    grounded = await ground(
        search, "news", top=2, template=ANSWER_WITH_CITATIONS_AND_DATES, today="2025-03-01"
    )
    assert search.calls == ["native"]
    assert "Published: 2025-02-01\nNew." in grounded.prompt and grounded.prompt.startswith(
        "Today's date is 2025-03-01."
    )
    assert grounded.sources[0].date == "2025-02-01" and grounded.metadata == {"via": "native"}
    assert grounded.references == "[1] Fresh - https://n.example/a (2025-02-01)"


@pytest.mark.anyio
async def test_falls_back_to_text_results_when_native_is_unreadable_or_missing() -> None:
    opaque = ProtocolOnly([object(), 42], [TextSearchResult("T", "text", "https://t.example/")])
    grounded = await ground(opaque, "q", top=2)
    assert opaque.calls == ["native", "text"] and grounded.metadata == {"via": "text"}
    assert grounded.references == "[1] T - https://t.example/"
    missing = ProtocolOnly(NotImplemented, [TextSearchResult("T", "text", None)])  # type: ignore[arg-type]
    grounded = await ground(missing, "q", top=2)
    assert missing.calls == ["native", "text"] and grounded.references == "[1] T"


class NoNativeFailingText(ProtocolOnly):
    """No native results, and a text search that fails: the error must reach the caller."""

    def __init__(self) -> None:
        super().__init__([], [])
        self.error = ProviderError("backend down", provider="kb")

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[Any]:
        self.calls.append("native")
        raise NotImplementedError

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[Any]:
        self.calls.append("native_sync")
        raise NotImplementedError

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[TextSearchResult]:
        self.calls.append("text")
        raise self.error

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kw: Any
    ) -> SearchResults[TextSearchResult]:
        self.calls.append("text_sync")
        raise self.error


@pytest.mark.anyio
async def test_a_connector_error_after_the_fallback_reaches_the_caller_unchained() -> None:
    failing = NoNativeFailingText()
    with pytest.raises(ProviderError) as raised:
        await ground(failing, "q")
    assert raised.value is failing.error and raised.value.__context__ is None
    with pytest.raises(ProviderError) as raised_sync:
        ground_sync(failing, "q")
    assert raised_sync.value is failing.error and raised_sync.value.__context__ is None
    assert failing.calls == ["native", "text", "native_sync", "text_sync"]


def test_bad_arguments() -> None:
    search = StaticTextSearch(DOCS)
    with pytest.raises(InvalidRequestError):
        ground_sync(search, "   ")
    with pytest.raises(InvalidRequestError):
        ground_sync(search, "retry", top=0)
    with pytest.raises(InvalidRequestError, match="unknown placeholder"):
        ground_sync(search, "retry", template="{nope}")


@pytest.fixture
def page_server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/ok":
                body = b"<title>Full page</title><main><p>The whole article text.</p></main>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
            else:
                body = b"gone"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_full_pages_replace_snippets_and_keep_them_on_failure(page_server: str) -> None:
    search = StaticTextSearch(
        [
            {"name": "A", "value": "snippet a", "link": f"{page_server}/ok"},
            {"name": "B", "value": "snippet b", "link": f"{page_server}/missing"},
        ],
        match="always",
    )
    refused = ground_sync(search, "q", full_pages=True)
    assert (
        refused.pages is not None
        and [p.error for p in refused.pages] == ["refused: 127.0.0.1 is a loopback address"] * 2
    )
    assert "snippet a" in refused.prompt
    grounded = ground_sync(search, "q", full_pages=True, fetch_options={"allow_private": True})
    assert grounded.pages is not None and [p.ok for p in grounded.pages] == [True, False]
    assert grounded.pages[0].result == search.documents[0]
    assert (
        "[1] Full page\nURL: " in grounded.prompt and "The whole article text." in grounded.prompt
    )
    assert "snippet b" in grounded.prompt and "snippet a" not in grounded.prompt


@pytest.mark.anyio
async def test_async_full_pages_match_the_blocking_ones(page_server: str) -> None:
    search = StaticTextSearch(
        [
            {"name": "A", "value": "snippet a", "link": f"{page_server}/ok"},
            {"name": "B", "value": "snippet b", "link": f"{page_server}/missing"},
        ],
        match="always",
    )
    fetch_options = {"allow_private": True}
    awaited = await ground(search, "q", full_pages=True, fetch_options=fetch_options)
    # ground_sync refuses to run inside an event loop: it runs in a worker thread here.
    blocking = await anyio.to_thread.run_sync(
        lambda: ground_sync(search, "q", full_pages=True, fetch_options=fetch_options)
    )
    assert awaited.pages is not None and [p.ok for p in awaited.pages] == [True, False]
    assert awaited.pages[0].result == search.documents[0]
    assert awaited.prompt == blocking.prompt and "The whole article text." in awaited.prompt
    assert awaited.references == blocking.references


def test_filter_argument_is_anded_with_the_options_filter_never_replacing_it() -> None:
    from textsearch import TextSearchFilter

    ts = StaticTextSearch(DOCS, match="always")
    tenant = TextSearchFilter().equal_to("tenant", "acme")
    site = TextSearchFilter().equal_to("site", "kb.example")
    ground_sync(ts, "retry", options=SearchOptions(filter=tenant), filter=site)
    assert ts.calls[-1].options.filter == TextSearchFilter().equal_to("tenant", "acme").equal_to(
        "site", "kb.example"
    )
    assert tenant == TextSearchFilter().equal_to("tenant", "acme")  # not mutated
    ground_sync(ts, "retry", filter=site)
    assert ts.calls[-1].options.filter == site


@pytest.mark.anyio
async def test_bad_fetch_options_fail_before_the_search() -> None:
    for bad, says in (
        ({"max_chars": 0}, "max_chars must be"),
        ({"allow_privat": True}, "unknown options: allow_privat"),
    ):
        ts = StaticTextSearch(DOCS, match="always")
        with pytest.raises(InvalidRequestError, match=says):
            ground_sync(ts, "retry", full_pages=True, fetch_options=bad)
        with pytest.raises(InvalidRequestError, match=says):
            await ground(ts, "retry", full_pages=True, fetch_options=bad)
        assert ts.calls == []


@pytest.mark.anyio
async def test_fetch_options_may_name_the_http_client_the_pages_come_through(
    page_server: str,
) -> None:
    import httpx

    seen: list[str] = []

    async def record(request: httpx.Request) -> None:
        seen.append(request.url.path)

    search = StaticTextSearch(
        [{"name": "A", "value": "snippet a", "link": f"{page_server}/ok"}], match="always"
    )
    async with httpx.AsyncClient(event_hooks={"request": [record]}) as client:
        grounded = await ground(
            search,
            "q",
            full_pages=True,
            fetch_options={"http_client": client, "allow_private": True, "max_chars": 20},
        )
    assert seen == ["/ok"]  # through the client given, not one made for the call
    assert grounded.pages is not None and grounded.pages[0].ok, grounded.pages[0].error
    assert grounded.pages[0].value.startswith("The") and grounded.pages[0].truncated
