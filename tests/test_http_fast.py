"""The async fast path (``transport="aiohttp"``) and injected httpx2 clients (#15).

Every behaviour of the engine must hold whatever moves the bytes: the same scripted server
on 127.0.0.1, the same faults, the same documented errors.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import sys
import time
import types
from typing import Any

import httpx
import httpx2
import pytest

from tests.emulators.web import DripServer, Reply, serve
from tests.test_http import BING_OK, ECHO_BING, KEY, _everything, assert_no_key, bing
from textsearch import (
    BochaTextSearch,
    ConfigurationError,
    ProviderError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    TextSearchError,
)
from textsearch._http._transports._aiohttp import AiohttpTransport


def fast(url: str, **kwargs: Any) -> Any:
    return bing(url, transport="aiohttp", **kwargs)


def run(connector: Any, method: str = "search", *args: Any, **kwargs: Any) -> Any:
    async def go() -> Any:
        try:
            assert isinstance(connector._engine._fast_path(), AiohttpTransport)
            return await getattr(connector, method)(*(args or ("q",)), **kwargs)
        finally:
            await connector.aclose()

    return asyncio.run(go())


def test_retries_then_answers_on_one_pooled_connection() -> None:
    with serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(503, {"errors": [{"code": "ServerError"}]}))
        connector = fast(server.url)

        async def go() -> list[int]:
            async with connector:
                return [len(await connector.search("q")) for _ in range(5)]

        assert asyncio.run(go()) == [1] * 5
    assert len(server.requests) == 6
    assert server.connections == 1
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"
    assert server.requests[0].headers["ocp-apim-subscription-key"] == KEY


def test_retry_after_beyond_max_retry_wait_is_raised_at_once() -> None:
    busy = Reply(429, {"errors": [{"code": "RateLimitExceeded"}]}, {"Retry-After": "3600"})
    with serve(busy) as server:
        with pytest.raises(RateLimitError) as info:
            run(fast(server.url, max_retries=3, max_retry_wait=5))
    assert len(server.requests) == 1
    assert info.value.retry_after == 3600.0


def test_per_phase_timeout_drop_and_refused_connection(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(200, BING_OK, delay=2.0)) as server:
        with pytest.raises(SearchTimeoutError) as slow:
            run(fast(server.url, timeout=0.2, max_retries=1))
        assert len(server.requests) == 2
    assert isinstance(slow.value.__cause__, httpx.TimeoutException)
    with serve(Reply(drop=True)) as server:
        with pytest.raises(SearchTransportError) as dropped:
            run(fast(server.url, max_retries=1))
        assert len(server.requests) == 2
    assert not isinstance(dropped.value, SearchTimeoutError)
    with serve() as server:
        url = server.url
    with pytest.raises(SearchTransportError):
        run(fast(url, max_retries=0))
    assert_no_key(dropped.value, caplog)


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_dripping_server_is_cut_off_at_the_deadline(where: str) -> None:
    with DripServer(where, interval=0.2) as server:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError) as info:
            run(fast(server.url, timeout=1.0, deadline=1.5))
        elapsed = time.monotonic() - started
    # The drip lasts hours (cut after a minute): ten times the deadline is the margin.
    assert 1.4 <= elapsed < 15.0, elapsed
    assert "1.5 s deadline" in str(info.value)
    assert len(server.accepted) == 1


@pytest.mark.parametrize("chunked", [False, True])
def test_size_cap_plain_and_decompressed(chunked: bool) -> None:
    with serve(Reply(200, oversize=11 * 1024 * 1024, chunked=chunked)) as server:
        with pytest.raises(ResponseFormatError, match="byte limit") as info:
            run(fast(server.url, max_retries=2))
        assert len(server.requests) == 1
    assert info.value.status_code == 200  # known before the body was read
    bomb = gzip.compress(b" " * (16 * 1024 * 1024))
    ok = gzip.compress(json.dumps(BING_OK).encode())
    with serve(Reply(200, ok, {"Content-Encoding": "gzip"})) as server:
        server.enqueue(Reply(200, bomb, {"Content-Encoding": "gzip"}))
        with pytest.raises(ResponseFormatError, match="byte limit"):
            run(fast(server.url))
        assert len(run(fast(server.url))) == 1


def test_redirects_same_origin_only() -> None:
    with serve(Reply(200, BING_OK)) as elsewhere, serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(308, b"", {"Location": "/v7.1/search?q=moved"}))
        assert len(run(fast(server.url))) == 1
        assert server.requests[1].path == "/v7.1/search"
        assert server.requests[1].headers["ocp-apim-subscription-key"] == KEY
        server.enqueue(Reply(307, b"", {"Location": elsewhere.url + "/v7.0/search"}))
        with pytest.raises(ProviderError) as info:
            run(fast(server.url))
    assert info.value.code == "cross_origin_redirect"
    assert elsewhere.requests == []


def test_a_307_keeps_the_post_body() -> None:
    ok = {"code": 200, "data": {"webPages": {"value": []}}}
    with serve(Reply(200, ok)) as server:
        server.enqueue(Reply(307, b"", {"Location": server.url + "/v2/web-search"}))
        connector = BochaTextSearch(KEY, base_url=server.url, transport="aiohttp")
        assert len(run(connector)) == 0
    first, second = server.requests
    assert second.method == "POST" and second.body == first.body


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_a_json_post_says_it_is_json_on_every_transport(transport: str) -> None:
    # The fast path once skipped aiohttp's Content-Type for JSON bodies: Tavily, Exa and
    # Bocha got a JSON body without "Content-Type: application/json".
    ok = {"code": 200, "data": {"webPages": {"value": []}}}
    with serve(Reply(200, ok)) as server:
        connector = BochaTextSearch(KEY, base_url=server.url, transport=transport)

        async def go() -> Any:
            async with connector:
                return await connector.search("q")

        assert len(asyncio.run(go())) == 0
    (request,) = server.requests
    assert request.method == "POST"
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.body)["query"] == "q"
    assert request.headers["accept-encoding"] == "gzip, deflate"
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_a_retry_gets_only_what_is_left_of_the_deadline() -> None:
    # The first attempt runs under the session's total (the whole deadline); an attempt
    # after a wait must be bounded by what is left, not by a fresh whole deadline.
    # The retry's answer takes 1.5 s: within a fresh 2 s deadline it would arrive (and the
    # search succeed), within the 1 s left after the 1 s wait it cannot, however loaded the
    # machine (load only shortens what is left). The outcome, not a clock, tells them apart.
    slow = Reply(200, BING_OK, delay=1.5)
    with serve(slow) as server:
        server.enqueue(Reply(503, {"errors": [{"code": "ServerError"}]}, {"Retry-After": "1"}))
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError) as info:
            run(fast(server.url, deadline=2.0, timeout=30.0, max_retries=2, max_retry_wait=5))
        elapsed = time.monotonic() - started
    assert elapsed >= 1.9, elapsed  # a lower bound: the whole deadline was used
    assert "2 s deadline" in str(info.value)
    assert len(server.requests) == 2


def test_an_echoed_key_is_scrubbed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(ECHO_BING) as server:
        with pytest.raises(TextSearchError) as info:
            run(fast(server.url))
    assert KEY not in _everything(info.value)
    assert KEY not in caplog.text


def test_verify_with_a_ca_bundle(certificate: tuple[str, str]) -> None:
    with serve(Reply(200, BING_OK), tls=certificate) as server:
        with pytest.raises(SearchTransportError):
            run(fast(server.url, max_retries=0))
        assert len(run(fast(server.url, verify=certificate[0]))) == 1


@pytest.mark.parametrize("mock", ["respx", "pytest_httpx", "vcr", None])
def test_auto_is_never_decided_by_what_is_imported(
    monkeypatch: pytest.MonkeyPatch, mock: str | None
) -> None:
    # issue #33 item 17: aiohttp imported (by this module), with or without a mock library,
    # changes nothing: auto is httpx unless TEXTSEARCH_TRANSPORT or the program says so
    from textsearch._http._transports._httpx import default_transport

    monkeypatch.delenv("TEXTSEARCH_TRANSPORT", raising=False)
    for name in ("respx", "pytest_httpx", "vcr"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    if mock is not None:
        monkeypatch.setitem(sys.modules, mock, types.ModuleType(mock))
    assert "aiohttp" in sys.modules
    assert bing("http://x")._engine._fast_path() is None
    with default_transport("aiohttp"):
        assert isinstance(bing("http://x")._engine._fast_path(), AiohttpTransport)
        assert bing("http://x", transport="httpx")._engine._fast_path() is None
        monkeypatch.setenv("TEXTSEARCH_TRANSPORT", "httpx")  # the user's word wins
        assert bing("http://x")._engine._fast_path() is None
        monkeypatch.delenv("TEXTSEARCH_TRANSPORT")
    assert bing("http://x")._engine._fast_path() is None  # only within the block
    with pytest.raises(ValueError):
        with default_transport("curl"):
            pass


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    pytest.importorskip("cryptography")
    from tests.emulators.web import make_certificate

    return make_certificate(tmp_path_factory.mktemp("tls"))


def test_transport_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    assert bing("http://x", transport="httpx")._engine._fast_path() is None
    with pytest.raises(ConfigurationError):
        bing("http://x", transport="curl")
    monkeypatch.setenv("TEXTSEARCH_TRANSPORT", "aiohttp")
    assert bing("http://x")._engine._fast_path() is not None
    monkeypatch.setenv("TEXTSEARCH_TRANSPORT", "httpx")
    assert bing("http://x")._engine._fast_path() is None
    monkeypatch.delenv("TEXTSEARCH_TRANSPORT")
    # aiohttp is imported (by this module), yet with respx loaded auto stays on httpx:
    # respx mocks keep working
    import respx  # noqa: F401

    assert "aiohttp" in sys.modules
    assert bing("http://x")._engine._fast_path() is None
    # an injected async client is always used as given
    client = httpx.AsyncClient()
    assert bing("http://x", http_client=client, transport="aiohttp")._engine._fast_path() is None
    asyncio.run(client.aclose())


def test_import_textsearch_and_a_short_sync_search_never_import_aiohttp() -> None:
    import subprocess

    code = (
        "import sys, textsearch, httpx\n"
        "from textsearch import BingTextSearch\n"
        "c = BingTextSearch('k' * 20, transport='auto',\n"
        "    http_client=httpx.Client(transport=httpx.MockTransport(\n"
        "        lambda r: httpx.Response(200, json={'webPages': {'value': []}}))))\n"
        "c.search_sync('q')\n"
        "print('aiohttp' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- httpx2 clients ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_an_injected_httpx2_client_is_used_never_closed_and_keeps_every_rule(mode: str) -> None:
    with serve(Reply(200, BING_OK)) as elsewhere, serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(503, {"errors": [{"code": "ServerError"}]}))

        def check(client: Any) -> None:
            connector = bing(server.url, http_client=client)
            search = connector.search_sync if mode == "sync" else None
            if search is not None:
                assert len(search("q")) == 1
            server.enqueue(Reply(307, b"", {"Location": elsewhere.url + "/x"}))
            with pytest.raises(ProviderError) as info:
                connector.search_sync("q")
            assert info.value.code == "cross_origin_redirect"

        if mode == "sync":
            client = httpx2.Client(follow_redirects=True)
            check(client)
            assert not client.is_closed
            client.close()
        else:

            async def go() -> None:
                async with httpx2.AsyncClient(follow_redirects=True) as client:
                    async with bing(server.url, http_client=client) as connector:
                        assert len(await connector.search("q")) == 1
                        server.enqueue(Reply(307, b"", {"Location": elsewhere.url + "/x"}))
                        with pytest.raises(ProviderError) as info:
                            await connector.search("q")
                        assert info.value.code == "cross_origin_redirect"
                    assert not client.is_closed

            asyncio.run(go())
    assert elsewhere.requests == []


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_httpx2_errors_become_documented_errors(mode: str) -> None:
    with serve(Reply(200, BING_OK, delay=2.0)) as server:
        if mode == "sync":
            with httpx2.Client() as client:
                with pytest.raises(SearchTimeoutError) as info:
                    bing(server.url, http_client=client, timeout=0.2, max_retries=0).search_sync(
                        "q"
                    )
        else:

            async def go() -> None:
                async with httpx2.AsyncClient() as client:
                    await bing(server.url, http_client=client, timeout=0.2, max_retries=0).search(
                        "q"
                    )

            with pytest.raises(SearchTimeoutError) as info:
                asyncio.run(go())
    assert isinstance(info.value.__cause__, httpx.TimeoutException)
    with DripServer("headers", interval=0.2) as drip, httpx2.Client() as client:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError):
            bing(drip.url, http_client=client, timeout=1.0, deadline=1.0).search_sync("q")
        assert time.monotonic() - started < 10.0  # the drip lasts hours; ten times the deadline


# -- the cheaper mapping keeps the model's guarantees ---------------------------------------


def test_trusted_results_equal_validated_ones_and_stay_frozen() -> None:
    import pydantic

    from textsearch import TextSearchResult
    from textsearch.base import trusted_text_search_result

    fast_one = trusted_text_search_result("t", None, "https://e.example/")
    slow_one = TextSearchResult(name="t", value=None, link="https://e.example/")
    assert fast_one == slow_one and hash(fast_one) == hash(slow_one)
    assert fast_one.model_dump() == slow_one.model_dump()
    assert fast_one.model_dump_json() == slow_one.model_dump_json()
    assert repr(fast_one) == repr(slow_one)
    assert fast_one.model_fields_set == slow_one.model_fields_set
    with pytest.raises(pydantic.ValidationError):
        fast_one.name = "x"  # type: ignore[misc]
    assert fast_one.model_copy(update={"name": "u"}).name == "u"
    with serve(Reply(200, BING_OK)) as server:
        results = run(fast(server.url), "get_text_search_results")
    assert results[0] == TextSearchResult(
        name="Transports - HTTPX",
        value="HTTPX's Client also accepts a transport argument.",
        link="https://www.python-httpx.org/advanced/transports/",
    )


def test_the_fast_path_uses_the_proxy_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The proxy variables are read once per origin (aiohttp's trust_env reads them, and
    # .netrc, in a worker thread on every request).
    with serve(Reply(200, BING_OK)) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "")
        results = run(bing("http://bing.invalid", transport="aiohttp"))
    assert len(results) == 1
    assert proxy.requests[0].path == "/v7.0/search"
    assert proxy.requests[0].headers["host"] == "bing.invalid"
