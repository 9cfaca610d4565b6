"""One guard kit (#23.1): the same attacks against every path that reads the network.

The HTTP engine on each of its transports (httpx async and blocking, aiohttp, urllib3) and
``fetch_pages`` meet the same servers on 127.0.0.1: a redirect to another origin, a body
past the cap, a gzip bomb, a server that drips one byte a second. The Azure bridge meets
the same through its emulator in ``tests/connectors/azure/test_azure_hardening.py``. Each path
must hold, and hold by the same rules (the same cap counting, the same deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import importlib
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.emulators.web import DripServer, Reply, serve
from textsearch import ProviderError, ResponseFormatError, SearchTimeoutError, TextSearchResult
from textsearch._http import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RESPONSE_BYTES,
    ErrorDetail,
    HttpEngine,
    HttpRequest,
)
from textsearch._http import _guards as guards
from textsearch.grounding import fetch_pages

KEY = "SECRET-guard-key-5b1e0c7a93d2"
ENGINE_PATHS = ["httpx-async", "httpx-sync", "aiohttp", "urllib3"]
TEXT = {"Content-Type": "text/plain; charset=utf-8"}


@pytest.fixture(autouse=True)
def _no_transport_from_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("TEXTSEARCH_TRANSPORT", raising=False)
    # Imported here, outside the timed blocks: aiohttp's import alone can take a second.
    for module in ("_aiohttp", "_urllib3"):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"textsearch._http._transports.{module}")
    yield


def _engine(path: str, **kwargs: Any) -> HttpEngine:
    if path == "aiohttp":
        pytest.importorskip("aiohttp")
    if path == "urllib3":
        pytest.importorskip("urllib3")
    transport = {"aiohttp": "aiohttp", "urllib3": "urllib3"}.get(path, "httpx")
    kwargs.setdefault("max_retries", 0)
    return HttpEngine(
        provider="guarded",
        read_error=lambda status, response: ErrorDetail(message=f"status {status}"),
        transport=transport,
        secret=KEY,
        **kwargs,
    )


def _get(path: str, url: str, **kwargs: Any) -> bytes:
    """The body the engine hands to a parser, on ``path``; raises the engine's errors."""
    engine = _engine(path, **kwargs)
    request = HttpRequest("GET", url, headers={"Authorization": f"Bearer {KEY}"})

    def parse(response: Any) -> list[bytes]:
        return [response.content]

    if path in ("httpx-sync", "urllib3"):
        try:
            return engine.send_sync(request, parse)[0]
        finally:
            engine.close()

    async def go() -> bytes:
        try:
            return (await engine.send(request, parse))[0]
        finally:
            await engine.aclose()

    return asyncio.run(go())


def _page(link: str, **kwargs: Any) -> Any:
    (page,) = asyncio.run(
        fetch_pages(
            [TextSearchResult(name="t", value="snippet", link=link)], allow_private=True, **kwargs
        )
    )
    return page


# -- credentials never follow a redirect to another origin -----------------------------------


@pytest.mark.parametrize("path", ENGINE_PATHS)
def test_engine_refuses_a_cross_origin_redirect_on_every_transport(path: str) -> None:
    with serve(Reply(200, b"elsewhere", TEXT)) as elsewhere, serve() as home:
        home.default = Reply(302, b"", {"Location": elsewhere.url + "/steal"})
        with pytest.raises(ProviderError) as info:
            _get(path, home.url + "/q")
    assert info.value.code == "cross_origin_redirect"
    assert home.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert elsewhere.requests == []  # not even without the key


@pytest.mark.parametrize("path", ENGINE_PATHS)
def test_engine_stops_a_same_origin_redirect_loop_at_the_shared_limit(path: str) -> None:
    with serve() as home:
        home.default = Reply(302, b"", {"Location": "/again"})
        with pytest.raises(ProviderError) as info:
            _get(path, home.url + "/q")
    assert info.value.status_code == 302
    assert len(home.requests) == guards.MAX_REDIRECTS + 1


def test_fetch_pages_follows_another_origin_without_the_clients_credentials() -> None:
    async def go(link: str) -> Any:
        async with httpx.AsyncClient(
            headers={"Authorization": f"Bearer {KEY}", "X-Api-Key": KEY}
        ) as client:
            (page,) = await fetch_pages(
                [TextSearchResult(name="t", value="s", link=link)],
                allow_private=True,
                http_client=client,
            )
        return page

    with serve(Reply(200, b"the page elsewhere", TEXT)) as elsewhere, serve() as home:
        home.enqueue(Reply(302, b"", {"Location": "/moved"}))  # same origin: kept
        home.enqueue(Reply(302, b"", {"Location": elsewhere.url + "/page"}))
        page = asyncio.run(go(home.url + "/start"))
    assert page.ok and page.value == "the page elsewhere"
    assert [r.headers.get("authorization") for r in home.requests] == [f"Bearer {KEY}"] * 2
    (hop,) = elsewhere.requests
    assert "authorization" not in hop.headers and "x-api-key" not in hop.headers
    assert KEY not in repr(hop.headers)


def test_fetch_pages_keeps_dropping_credentials_after_coming_back_home() -> None:
    async def go(link: str) -> Any:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}) as client:
            (page,) = await fetch_pages(
                [TextSearchResult(name="t", value="s", link=link)],
                allow_private=True,
                http_client=client,
            )
        return page

    with serve() as elsewhere, serve(Reply(200, b"home again", TEXT)) as home:
        home.enqueue(Reply(302, b"", {"Location": elsewhere.url + "/bounce"}))
        elsewhere.default = Reply(302, b"", {"Location": home.url + "/back"})
        page = asyncio.run(go(home.url + "/start"))
    assert page.ok and page.value == "home again"
    first, back = home.requests
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert "authorization" not in back.headers  # the chain went elsewhere once


# -- one cap, counted after decompression -------------------------------------------------------


def test_the_cap_and_deadline_defaults_are_one() -> None:
    from textsearch.connectors.azure import _transport as azure_bridge

    assert DEFAULT_MAX_RESPONSE_BYTES == guards.DEFAULT_MAX_RESPONSE_BYTES == 10 * 1024 * 1024
    assert azure_bridge.DEFAULT_MAX_RESPONSE_BYTES == DEFAULT_MAX_RESPONSE_BYTES
    assert DEFAULT_DEADLINE == azure_bridge.DEFAULT_DEADLINE == 60.0


@pytest.mark.parametrize("path", ENGINE_PATHS)
@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
def test_engine_refuses_a_body_past_the_cap_on_every_transport(path: str, chunked: bool) -> None:
    with serve(Reply(200, oversize=200_000, chunked=chunked)) as server:
        with pytest.raises(ResponseFormatError, match="larger than the 50000 byte limit"):
            _get(path, server.url + "/big", max_response_bytes=50_000)
    assert len(server.requests) == 1  # not retried


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """About 20 kB of gzip that inflates to 20 MB."""
    return gzip.compress(b"a" * (20 << 20), compresslevel=9)


@pytest.mark.parametrize("path", ENGINE_PATHS)
def test_engine_refuses_a_gzip_bomb_on_every_transport(path: str, bomb: bytes) -> None:
    reply = Reply(200, bomb, {"Content-Encoding": "gzip", **TEXT})
    with serve(reply) as server:
        with pytest.raises(ResponseFormatError, match="larger than the 1048576 byte limit"):
            _get(path, server.url + "/bomb", max_response_bytes=1 << 20)


@pytest.mark.parametrize("path", ENGINE_PATHS)
def test_engine_reads_a_compressed_body_under_the_cap(path: str) -> None:
    body = b"small and zipped " * 100
    reply = Reply(200, gzip.compress(body), {"Content-Encoding": "gzip", **TEXT})
    with serve(reply) as server:
        assert _get(path, server.url + "/z", max_response_bytes=len(body)) == body


def test_fetch_pages_cuts_the_same_bodies_at_its_cap(bomb: bytes) -> None:
    plain = Reply(200, b"word " * 40_000, TEXT)
    zipped = Reply(200, bomb, {"Content-Encoding": "gzip", **TEXT})
    with serve() as server:
        server.enqueue(plain, zipped)
        big = _page(server.url + "/big", max_bytes=50_000, max_chars=1_000_000)
        boom = _page(server.url + "/bomb", max_bytes=1 << 20, max_chars=10 << 20)
    assert big.ok and big.truncated and len(big.value) <= 50_000
    assert boom.ok and boom.truncated and len(boom.value) <= 1 << 20


def test_the_body_reader_counts_the_encoded_bytes_too() -> None:
    # A tiny gzip member and then 1 MB that inflates to nothing (zlib leaves it unused):
    # the decoded size never grows, the bytes received do.
    import os

    body = gzip.compress(b"hi") + os.urandom(1 << 20)
    chunks = [body[start : start + 16_384] for start in range(0, len(body), 16_384)]
    reader = guards.BodyReader(64 * 1024, "gzip")
    with pytest.raises(guards.TooLarge):
        for chunk in chunks:
            reader.feed(chunk)
    cut = guards.BodyReader(64 * 1024, "gzip", truncate=True)
    assert any(cut.feed(chunk) for chunk in chunks)
    assert cut.cut and cut.finish() == b"hi"


# -- one deadline, across every byte ----------------------------------------------------------


@pytest.mark.parametrize("path", ENGINE_PATHS)
def test_engine_cuts_a_one_byte_a_second_server_at_the_deadline(path: str) -> None:
    with DripServer("headers", interval=1.0) as server:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError, match="1.5 s deadline"):
            _get(path, server.url + "/drip", timeout=5.0, deadline=1.5, max_retries=2)
        elapsed = time.monotonic() - started
    # The drip lasts hours (cut after a minute): ten times the deadline is the margin.
    assert 1.4 <= elapsed < 15.0, elapsed
    assert len(server.accepted) == 1


def test_fetch_pages_cuts_a_one_byte_a_second_server_at_the_deadline() -> None:
    with DripServer("headers", interval=1.0) as server:
        started = time.monotonic()
        page = _page(server.url + "/drip", timeout=1.5)
        elapsed = time.monotonic() - started
    assert not page.ok and page.error == "timed out after 1.5 s"
    assert 1.4 <= elapsed < 15.0, elapsed


@pytest.mark.parametrize("path", ENGINE_PATHS)
def test_engine_redirect_hops_share_one_deadline(path: str) -> None:
    # Each hop answers in 0.4 s, far within the 5 s timeouts; five hops would take 2 s.
    slow_hop = Reply(302, b"", {"Location": "/next"}, delay=0.4)
    with serve(slow_hop) as server:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError, match="1.5 s deadline"):
            _get(path, server.url + "/q", timeout=5.0, deadline=1.5, max_retries=2)
        elapsed = time.monotonic() - started
    # Unshared, the five hops would all be followed and the sixth 302 be the error (a
    # ProviderError, after 2.4 s): the error's type and the hop count tell them apart, and
    # no load can make 0.4 s hops fit more than four into 1.5 s.
    assert elapsed >= 1.4, elapsed
    assert len(server.requests) <= 4  # the last hop was cut, and nothing retried
