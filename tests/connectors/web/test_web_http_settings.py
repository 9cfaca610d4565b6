"""``deadline=``, ``verify=`` and ``transport=`` on Brave, Tavily, Exa and SearXNG.

Each goes through real sockets to a server on 127.0.0.1: the settings must reach the
shared engine, not just be accepted by the constructor.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.connectors.web import test_brave, test_exa, test_searxng, test_tavily
from tests.emulators.web import DripServer, Reply, call, serve
from textsearch import (
    BraveTextSearch,
    ExaTextSearch,
    SearchTimeoutError,
    SearchTransportError,
    SearxngTextSearch,
    TavilyTextSearch,
    __version__,
)

KEY = "SECRET-key-0123456789abcdef0123"


def _brave(url: str, **kwargs: Any) -> Any:
    return BraveTextSearch(KEY, endpoint=url + "/res/v1/web/search", **kwargs)


def _tavily(url: str, **kwargs: Any) -> Any:
    return TavilyTextSearch(KEY, base_url=url, **kwargs)


def _exa(url: str, **kwargs: Any) -> Any:
    return ExaTextSearch(KEY, base_url=url, **kwargs)


def _searxng(url: str, **kwargs: Any) -> Any:
    return SearxngTextSearch(url, **kwargs)


CONNECTORS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "brave": (_brave, test_brave.OK),
    "tavily": (_tavily, test_tavily.OK),
    "exa": (_exa, test_exa.OK),
    "searxng": (_searxng, test_searxng.OK),
}


@pytest.mark.parametrize("mode", ["async", "sync"])
@pytest.mark.parametrize("name", CONNECTORS)
def test_a_dripping_server_is_cut_off_at_the_deadline(name: str, mode: str) -> None:
    # One byte every 0.1 s never trips the 1 s read timeout; only the total deadline ends it.
    make, _ = CONNECTORS[name]
    with DripServer("headers", interval=0.1) as server:
        # built before the clock starts: a loaded machine's first client set-up is not the send
        connector = make(server.url, timeout=1.0, deadline=0.4, max_retries=2)
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError) as info:
            call(connector, mode, "search", "q")
        elapsed = time.monotonic() - started
        assert len(server.accepted) == 1  # no retry once the deadline has passed
    # The drip lasts hours (cut after a minute): half that minute is the margin.
    assert 0.35 <= elapsed < 30.0, elapsed
    assert "0.4 s deadline" in str(info.value)
    assert KEY not in str(info.value)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    pytest.importorskip("cryptography")
    from tests.emulators.web import make_certificate

    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.mark.parametrize("name", CONNECTORS)
def test_verify_takes_a_ca_bundle(
    name: str, certificate: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    make, ok = CONNECTORS[name]
    with serve(Reply(200, ok), tls=certificate) as server:
        with pytest.raises(SearchTransportError):  # self-signed: refused by default
            call(make(server.url, max_retries=0), "sync", "search", "q")
        for mode in ("sync", "async"):
            assert len(call(make(server.url, verify=certificate[0]), mode, "search", "q")) > 0
        with pytest.warns(UserWarning, match="verify=False"):
            insecure = make(server.url, verify=False)
        assert len(call(insecure, "sync", "search", "q")) > 0


@pytest.mark.parametrize("name", CONNECTORS)
def test_transport_aiohttp_sends_through_aiohttp(name: str) -> None:
    from textsearch._http._transports._aiohttp import AiohttpTransport

    make, ok = CONNECTORS[name]
    connector = make("http://127.0.0.1:1", transport="httpx")
    assert connector._engine._fast_path() is None

    with serve(Reply(200, ok)) as server:
        connector = make(server.url, transport="aiohttp")

        async def go() -> list[int]:
            async with connector:
                assert isinstance(connector._engine._fast_path(), AiohttpTransport)
                return [len(await connector.search("q")) for _ in range(3)]

        counts = asyncio.run(go())
        assert server.connections == 1  # one pooled aiohttp connection for the three
    assert counts[0] > 0 and counts == [counts[0]] * 3
    assert len(server.requests) >= 3  # SearXNG may read more than one page per search
    assert {r.headers["user-agent"] for r in server.requests} == {
        f"textsearch-sdk/{__version__} (aiohttp)"
    }
