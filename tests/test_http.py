"""The shared HTTP engine: retries, waits, timeouts, size cap, client ownership, logging.

Integration tests talk to a scripted server on 127.0.0.1 over real sockets; every case runs
through the async path and its blocking twin, the twin on both blocking transports (httpx,
and urllib3 chosen with ``TEXTSEARCH_TRANSPORT=urllib3``).
"""

from __future__ import annotations

import asyncio
import email.utils
import gc
import logging
import time
import traceback
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx

from tests.emulators.web import DripServer, Reply, call, serve
from textsearch import (
    BadRequestError,
    BingTextSearch,
    BochaTextSearch,
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    TextSearchError,
    TextSearchFilter,
)
from textsearch._http import (
    DEFAULT_TIMEOUT,
    ErrorDetail,
    HttpEngine,
    HttpRequest,
    HttpResponse,
    parse_retry_after,
)

KEY = "SECRET-test-key-7f3c2a91d0e4b655"
#: "sync" is the blocking twin on httpx, "urllib3" the same twin on the urllib3 transport.
MODES = ["async", "sync", "urllib3"]
BLOCKING = ["sync", "urllib3"]

BING_OK: dict[str, Any] = {
    "_type": "SearchResponse",
    "queryContext": {"originalQuery": "httpx retry"},
    "webPages": {
        "webSearchUrl": "https://www.bing.com/search?q=httpx+retry",
        "totalEstimatedMatches": 48200,
        "value": [
            {
                "id": "https://api.bing.microsoft.com/api/v7/#WebPages.0",
                "name": "Transports - HTTPX",
                "url": "https://www.python-httpx.org/advanced/transports/",
                "displayUrl": "https://www.python-httpx.org/advanced/transports",
                "snippet": "HTTPX's Client also accepts a transport argument.",
                "dateLastCrawled": "2025-06-30T08:14:00.0000000Z",
            }
        ],
    },
}


def bing(server_url: str, **kwargs: Any) -> BingTextSearch:
    kwargs.setdefault("max_retry_wait", 0.05)
    return BingTextSearch(KEY, endpoint=server_url + "/v7.0/search", **kwargs)


def recorded_waits(connector: Any) -> list[float]:
    """Every wait the engine chooses between attempts, noted as it starts (and still waited).

    What a retry test asserts is the wait the engine chose, not the wall time around it,
    which a loaded machine stretches (issue #33 item 18).
    """
    engine = connector._engine
    waits: list[float] = []
    sleep, async_sleep = engine.sleep, engine.async_sleep

    def noted(seconds: float) -> None:
        waits.append(seconds)
        sleep(seconds)

    async def noted_async(seconds: float) -> None:
        waits.append(seconds)
        await async_sleep(seconds)

    engine.sleep, engine.async_sleep = noted, noted_async
    return waits


def gaps(server: Any) -> list[float]:
    times = [r.at for r in server.requests]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def assert_no_key(exc: BaseException, caplog: pytest.LogCaptureFixture) -> None:
    assert KEY not in str(exc)
    assert KEY not in repr(exc)
    assert KEY not in " ".join(getattr(exc, "hints", ()))
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in repr(record.__dict__)


@pytest.fixture(autouse=True)
def _blocking_transport(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Mode "urllib3": the blocking twin goes through urllib3, and is checked to have.

    An injected httpx client is always used as given, so with one urllib3 must stay unused.
    """
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    if params.get("mode") != "urllib3":
        monkeypatch.delenv("TEXTSEARCH_TRANSPORT", raising=False)
        yield
        return
    from textsearch._http._transports._urllib3 import Urllib3Transport

    monkeypatch.setenv("TEXTSEARCH_TRANSPORT", "urllib3")
    used: list[int] = []
    send = Urllib3Transport.send

    def counted(self: Urllib3Transport, *args: Any) -> Any:
        used.append(1)
        return send(self, *args)

    monkeypatch.setattr(Urllib3Transport, "send", counted)
    yield
    injected = params.get("kind") == "injected" or params.get("injected") is True
    assert bool(used) is not injected, "urllib3 carries the blocking sends unless injected"


# -- Retry-After -------------------------------------------------------------------------


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("nan") is None
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30, abs=1.0)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after(past, now=now) == 0.0


# -- integration over real sockets -------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_503_then_200_is_retried(mode: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(503, {"errors": [{"code": "ServerError", "message": "busy"}]}))
        search = bing(server.url)
        waits = recorded_waits(search)
        results = call(search, mode, "get_text_search_results", "httpx retry")
    assert [r.name for r in results] == ["Transports - HTTPX"]
    assert len(server.requests) == 2
    assert len(waits) == 1 and 0 <= waits[0] <= 0.05  # jitter under max_retry_wait


@pytest.mark.parametrize("mode", MODES)
def test_persistent_503_raises_service_unavailable_after_retries(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(503, {"errors": [{"code": "ServerError", "message": "down"}]})) as server:
        search = bing(server.url, max_retries=2)
        waits = recorded_waits(search)
        with pytest.raises(ServiceUnavailableError) as info:
            call(search, mode, "search", "q")
    assert len(server.requests) == 3
    assert info.value.status_code == 503
    assert info.value.provider == "bing"
    assert "after 3 attempts" in str(info.value)
    assert_no_key(info.value, caplog)
    ours = [r for r in caplog.records if r.name == "textsearch"]
    assert [r.__dict__["attempt"] for r in ours] == [1, 2, 3]  # one record per request
    # full jitter below a 0.05 s cap: no wait can be long
    assert len(waits) == 2 and all(0 <= w <= 0.05 for w in waits)


@pytest.mark.parametrize("mode", MODES)
def test_429_with_retry_after_is_honoured(mode: str) -> None:
    busy = Reply(429, {"errors": [{"code": "RateLimitExceeded"}]}, {"Retry-After": "1"})
    with serve(Reply(200, BING_OK)) as server:
        server.enqueue(busy)
        search = bing(server.url, max_retry_wait=5.0)
        waits = recorded_waits(search)
        call(search, mode, "search", "q")
    assert len(server.requests) == 2
    assert waits == [pytest.approx(1.0, abs=0.05)]
    assert gaps(server)[0] >= 0.95  # a lower bound: the wait really happened


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_longer_than_max_retry_wait_raises_at_once(
    mode: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    # The service asks for a day: no retry (it would be refused again), no 20 s of waits.
    caplog.set_level(logging.DEBUG)
    busy = Reply(status, {"errors": [{"code": "RateLimitExceeded"}]}, {"Retry-After": "86400"})
    with serve(busy) as server:
        search = bing(server.url, max_retries=3, max_retry_wait=5.0)
        waits = recorded_waits(search)
        with pytest.raises((RateLimitError, ServiceUnavailableError)) as info:
            call(search, mode, "search", "q")
    assert len(server.requests) == 1
    assert waits == []  # not even max_retry_wait is waited
    assert info.value.retry_after == 86400.0
    assert info.value.status_code == status
    assert type(info.value) is (RateLimitError if status == 429 else ServiceUnavailableError)
    assert "max_retry_wait" in str(info.value)
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
def test_429_without_retry_after_backs_off_and_reports_none(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(429, {"errors": [{"code": "RateLimitExceeded"}]})) as server:
        search = bing(server.url, max_retries=2, max_retry_wait=0.1)
        waits = recorded_waits(search)
        with pytest.raises(RateLimitError) as info:
            call(search, mode, "search", "q")
    assert len(server.requests) == 3
    assert info.value.retry_after is None
    assert_no_key(info.value, caplog)
    assert len(waits) == 2 and all(0 <= w <= 0.1 for w in waits)


@pytest.mark.parametrize("mode", MODES)
def test_max_retries_zero_disables_retrying(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(503, b"")) as server:
        with pytest.raises(ServiceUnavailableError) as info:
            call(bing(server.url, max_retries=0), mode, "search", "q")
    assert len(server.requests) == 1
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_other_4xx_are_never_retried(
    mode: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(status, {"errors": [{"code": "InvalidRequest", "message": "no"}]})) as server:
        with pytest.raises(Exception) as info:
            call(bing(server.url, max_retries=3), mode, "search", "q")
    assert len(server.requests) == 1
    assert getattr(info.value, "status_code", None) == status
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
def test_slow_answer_times_out_after_retries(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # The server would answer after a minute (it stops waiting when the test ends): only
    # the 0.2 s timeout ends each attempt; without it the 60 s deadline would.
    with serve(Reply(200, BING_OK, delay=60.0)) as server:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError) as info:
            call(bing(server.url, timeout=0.2, max_retries=1), mode, "search", "q")
        elapsed = time.monotonic() - started
    assert len(server.requests) == 2
    assert elapsed < 10.0  # two 0.2 s timeouts and a jitter, with a margin for a busy machine
    assert isinstance(info.value, TimeoutError)
    assert isinstance(info.value.__cause__, httpx.TimeoutException)
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
def test_dropped_connection_is_retried_then_transport_error(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(drop=True)) as server:
        with pytest.raises(SearchTransportError) as info:
            call(bing(server.url, max_retries=2), mode, "search", "q")
    assert len(server.requests) == 3
    assert not isinstance(info.value, SearchTimeoutError)
    assert info.value.provider == "bing"
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
def test_dropped_connection_then_success(mode: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(drop=True))
        results = call(bing(server.url), mode, "search", "q")
    assert len(results) == 1
    assert len(server.requests) == 2


@pytest.mark.parametrize("mode", BLOCKING)
def test_refused_connection_is_a_transport_error(mode: str) -> None:
    with serve() as server:
        url = server.url
    # the server is stopped: nothing listens on that port any more
    with pytest.raises(SearchTransportError):
        call(bing(url, max_retries=1), mode, "search", "q")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chunked", [False, True])
def test_oversized_body_is_a_format_error_and_not_retried(
    mode: str, chunked: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(200, oversize=11 * 1024 * 1024, chunked=chunked)) as server:
        with pytest.raises(ResponseFormatError) as info:
            call(bing(server.url, max_retries=2), mode, "search", "q")
    assert len(server.requests) == 1
    assert "byte limit" in str(info.value)
    assert info.value.status_code == 200
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
def test_pool_reuses_one_connection(mode: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url)
        if mode != "async":
            with connector:
                for _ in range(5):
                    connector.search_sync("q")
        else:

            async def go() -> None:
                async with connector:
                    for _ in range(5):
                        await connector.search("q")

            asyncio.run(go())
        assert len(server.requests) == 5
        assert server.connections == 1


# -- engine unit tests (respx) -----------------------------------------------------------


def _engine(**kwargs: Any) -> HttpEngine:
    def read_error(status: int, response: HttpResponse) -> ErrorDetail:
        return ErrorDetail(code="E", message=response.content.decode() or None)

    return HttpEngine(provider="test", read_error=read_error, secret=KEY, **kwargs)


def _request() -> HttpRequest:
    return HttpRequest("GET", "https://api.test/search", (("q", "x"),), None, {"X-Key": KEY})


def test_engine_waits_use_full_jitter_and_cap() -> None:
    engine = _engine(max_retries=3, max_retry_wait=0.75)
    waits: list[float] = []
    engine.sleep = waits.append
    engine.random = lambda: 1.0  # the top of each jitter window
    with respx.mock() as mock:
        route = mock.get("https://api.test/search").respond(502, text="bad gateway")
        with pytest.raises(ServiceUnavailableError):
            engine.send_sync(_request(), lambda r: [])
    engine.close()
    assert route.call_count == 4
    assert waits == [0.5, 0.75, 0.75]  # 0.5 * 2**n, capped at max_retry_wait


def test_engine_retry_after_wait_is_used_as_given_under_the_cap() -> None:
    engine = _engine(max_retries=1, max_retry_wait=10)
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    engine.async_sleep = fake_sleep

    async def go() -> None:
        try:
            with respx.mock() as mock:
                mock.get("https://api.test/search").mock(
                    side_effect=[
                        httpx.Response(429, headers={"Retry-After": "7"}),
                        httpx.Response(200, json={}),
                    ]
                )
                assert await engine.send(_request(), lambda r: [1, 2]) == [1, 2]
        finally:
            await engine.aclose()

    asyncio.run(go())
    assert waits == [7.0]


def test_engine_logs_one_record_per_request_without_key_or_query(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="textsearch")
    engine = _engine()
    with respx.mock() as mock:
        mock.get("https://api.test/search").respond(200, json={})
        engine.send_sync(_request(), lambda r: [1, 2, 3])
    engine.close()
    records = [r for r in caplog.records if r.name == "textsearch"]
    assert len(records) == 1
    record = records[0]
    assert record.levelno == logging.INFO
    assert record.__dict__["provider"] == "test"
    assert record.__dict__["status"] == 200
    assert record.__dict__["attempt"] == 1
    assert record.__dict__["result_count"] == 3
    assert record.__dict__["latency_ms"] >= 0
    message = record.getMessage()
    assert "results=3" in message and "status=200" in message
    assert KEY not in message
    assert "q=x" not in message  # the query string is never logged
    assert record.msg.count("%") >= 5  # %-style arguments, not a pre-built string


def test_engine_scrubs_the_key_from_provider_messages() -> None:
    engine = _engine(max_retries=0)
    with respx.mock() as mock:
        mock.get("https://api.test/search").respond(401, text=f"bad key {KEY}")
        with pytest.raises(Exception) as info:
            engine.send_sync(_request(), lambda r: [])
    engine.close()
    assert KEY not in str(info.value)
    assert "***" in str(info.value)


def test_request_description_repr_hides_the_key() -> None:
    # Tracebacks with locals (pytest --showlocals, error trackers) print this object.
    request = _request()
    assert KEY not in repr(request)
    assert KEY not in str(request)
    assert "api.test" in repr(request)
    assert request.headers["X-Key"] == KEY  # still sent


def test_engine_settings_are_validated() -> None:
    with pytest.raises(ConfigurationError):
        _engine(max_retries=-1)
    with pytest.raises(ConfigurationError):
        _engine(max_retry_wait=-1)
    with pytest.raises(ConfigurationError):
        _engine(timeout=0)
    with pytest.raises(ConfigurationError):
        _engine(timeout="5")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        _engine(http_client=object())  # type: ignore[arg-type]
    assert _engine().timeout == DEFAULT_TIMEOUT
    assert _engine(timeout=3).timeout == httpx.Timeout(3.0)


def test_default_timeout_and_pool_limits_of_owned_clients() -> None:
    engine = _engine()
    client = engine.sync_client()
    try:
        assert client.timeout == httpx.Timeout(20.0, connect=5.0)
        pool = client._transport._pool  # type: ignore[attr-defined]
        assert pool._max_connections == 10
        assert pool._max_keepalive_connections == 10
    finally:
        engine.close()
    assert client.is_closed


def test_injected_client_without_timeout_still_gets_one() -> None:
    seen: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(200, json=BING_OK)

    with httpx.Client(transport=httpx.MockTransport(handler), timeout=None) as client:
        BingTextSearch(KEY, http_client=client).search_sync("q")
        BingTextSearch(KEY, http_client=client, timeout=2.5).search_sync("q")
    assert seen[0]["read"] == 20.0 and seen[0]["connect"] == 5.0
    assert seen[1]["read"] == 2.5


def test_injected_client_keeps_its_own_timeout() -> None:
    seen: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(200, json=BING_OK)

    with httpx.Client(transport=httpx.MockTransport(handler), timeout=7.0) as client:
        BingTextSearch(KEY, http_client=client).search_sync("q")
    assert seen[0]["read"] == 7.0


# -- client ownership --------------------------------------------------------------------


def test_injected_async_client_is_never_closed() -> None:
    async def go() -> None:
        async with httpx.AsyncClient(
            transport=httpx.MockTransport(lambda r: httpx.Response(200, json=BING_OK))
        ) as client:
            async with BingTextSearch(KEY, http_client=client) as connector:
                assert len(await connector.search("q")) == 1
            assert not client.is_closed
            await connector.aclose()
            assert not client.is_closed

    asyncio.run(go())


def test_injected_sync_client_is_never_closed_and_async_path_gets_an_owned_one() -> None:
    sync_client = httpx.Client(
        transport=httpx.MockTransport(lambda r: httpx.Response(200, json=BING_OK))
    )
    connector = BingTextSearch(KEY, http_client=sync_client)
    with connector:
        assert len(connector.search_sync("q")) == 1
    assert not sync_client.is_closed

    async def go() -> httpx.AsyncClient:
        with respx.mock() as mock:
            mock.get("https://api.bing.microsoft.com/v7.0/search").respond(200, json=BING_OK)
            await connector.search("q")
            owned = connector._engine.async_client()
            await connector.aclose()
            return owned

    owned = asyncio.run(go())
    assert owned.is_closed
    assert not sync_client.is_closed
    sync_client.close()


def test_owned_clients_are_created_once_and_closed() -> None:
    connector = BingTextSearch(KEY)
    first = connector._engine.sync_client()
    assert connector._engine.sync_client() is first
    connector.close()
    assert first.is_closed
    # usable again after close: a fresh client is created lazily
    second = connector._engine.sync_client()
    assert second is not first and not second.is_closed
    connector.close()


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_async_use_from_a_second_event_loop_works(transport: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url, transport=transport)
        assert len(asyncio.run(connector.search("q"))) == 1
        assert len(asyncio.run(connector.search("q"))) == 1  # not "Event loop is closed"

        async def close() -> None:
            await connector.aclose()

        asyncio.run(close())
        # The first loop's connection was closed as that loop ended, not left to the
        # garbage collector to find (and warn about, in whatever test runs then).
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gc.collect()
    assert [str(w.message) for w in caught if w.category is ResourceWarning] == []
    assert len(server.requests) == 2


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_a_connector_never_closed_leaves_no_socket_behind(transport: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url, transport=transport)
        assert len(asyncio.run(connector.search("q"))) == 1  # no aclose(), no async with
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            del connector
            gc.collect()
    assert [str(w.message) for w in caught if w.category is ResourceWarning] == []


@pytest.mark.parametrize("mode", BLOCKING)
def test_bocha_shares_the_engine(mode: str) -> None:
    with serve(Reply(200, {"code": 200, "data": {"webPages": {"value": []}}})) as server:
        server.enqueue(Reply(502, {"code": "502", "message": "bad gateway"}))
        connector = BochaTextSearch(KEY, base_url=server.url, max_retry_wait=0.05)
        assert len(call(connector, mode, "search", "q")) == 0
    assert len(server.requests) == 2


@pytest.mark.parametrize("cls", [BingTextSearch, BochaTextSearch])
def test_non_ascii_key_is_a_configuration_error_without_the_key(cls: Any) -> None:
    # httpx would raise UnicodeEncodeError on every request, with the key in its repr.
    key = "sk-ключ-0123456789"
    with pytest.raises(ConfigurationError) as info:
        cls(key)
    assert key not in str(info.value) and key not in repr(info.value)
    assert "ASCII" in str(info.value)


@pytest.mark.parametrize("mode", ["async", "sync"])  # urllib3: test_http_urllib3.py
@pytest.mark.parametrize("cls", [BingTextSearch, BochaTextSearch])
def test_unencodable_text_is_an_invalid_request_before_any_send(mode: str, cls: Any) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route().respond(200, json={})
        with pytest.raises(InvalidRequestError) as info:
            call(cls(KEY), mode, "search", "lone \ud800 surrogate")
    assert route.call_count == 0
    assert not isinstance(info.value, UnicodeError)
    assert info.value.__cause__ is None


@pytest.mark.parametrize("field", ["intitle", "site"])
def test_unencodable_filter_values_are_refused_when_the_filter_is_built(field: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        TextSearchFilter().equal_to(field, "a\ud800b")
    assert info.value.__cause__ is None


def _chain(error: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("failure", ["timeout", "refused"])
def test_chained_transport_errors_carry_no_request_with_the_key(mode: str, failure: str) -> None:
    import socket

    if failure == "timeout":
        with serve(Reply(200, BING_OK, delay=2.0)) as server:
            with pytest.raises(SearchTransportError) as info:
                call(bing(server.url, timeout=0.2, max_retries=0), mode, "search", "q")
    else:
        with socket.socket() as probe:  # a port nothing listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with pytest.raises(SearchTransportError) as info:
            call(bing(f"http://127.0.0.1:{port}", max_retries=0), mode, "search", "q")
    chained = _chain(info.value)[1:]
    assert chained, "the cause (type and message) is kept for debugging"
    for error in chained:
        if isinstance(error, httpx.RequestError):
            with pytest.raises(RuntimeError):
                error.request  # noqa: B018 - the request (and its headers) is not attached
            assert error.__traceback__ is None  # no frames holding the request either
        assert KEY not in repr(error) and KEY not in str(error)


def _body_engine(**kwargs: Any) -> HttpEngine:
    """An engine whose error reader decides retryability from the body, as Brave needs."""

    def read_error(status: int, response: HttpResponse) -> ErrorDetail:
        code = response.content.decode()
        if code == "QUOTA_LIMITED":
            return ErrorDetail(code=code, error_class=QuotaExceededError, retryable=False)
        if code == "TRANSIENT_400":
            return ErrorDetail(code=code, retryable=True)
        return ErrorDetail(code=code)

    return HttpEngine(provider="test", read_error=read_error, secret=KEY, **kwargs)


@pytest.mark.parametrize(
    ("status", "body", "calls", "error"),
    [
        (429, "QUOTA_LIMITED", 1, QuotaExceededError),  # same status, body says: do not retry
        (429, "RATE_LIMITED", 3, RateLimitError),  # status decides: retried
        (400, "TRANSIENT_400", 3, BadRequestError),  # body overrules a non-retry status
    ],
)
def test_engine_lets_the_error_body_decide_whether_to_retry(
    status: int, body: str, calls: int, error: type[Exception]
) -> None:
    engine = _body_engine(max_retries=2)
    engine.sleep = lambda seconds: None
    with respx.mock() as mock:
        route = mock.get("https://api.test/search").respond(status, text=body)
        with pytest.raises(error) as caught:
            engine.send_sync(_request(), lambda r: [])
    engine.close()
    assert route.call_count == calls
    assert getattr(caught.value, "code", None) == body


def test_engine_never_retries_an_error_read_as_a_spent_quota() -> None:
    def read_error(status: int, response: HttpResponse) -> ErrorDetail:
        return ErrorDetail(code="quota", error_class=QuotaExceededError)

    engine = HttpEngine(provider="test", read_error=read_error, secret=KEY, max_retries=2)
    engine.sleep = lambda seconds: None
    with respx.mock() as mock:
        route = mock.get("https://api.test/search").respond(503, text="")
        with pytest.raises(QuotaExceededError):
            engine.send_sync(_request(), lambda r: [])
    engine.close()
    assert route.call_count == 1


# -- the total deadline (#9) -------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("where", ["headers", "body"])
@pytest.mark.parametrize("injected", [False, True])
def test_a_dripping_server_is_cut_off_at_the_deadline(
    mode: str, where: str, injected: bool, caplog: pytest.LogCaptureFixture
) -> None:
    # One byte every 0.2 s never trips the 1 s read timeout, which restarts with each byte.
    caplog.set_level(logging.DEBUG)
    with DripServer(where, interval=0.2) as server:
        started = time.monotonic()
        with pytest.raises(SearchTimeoutError) as info:
            run_with(
                mode,
                "injected" if injected else "owned",
                lambda client: bing(
                    server.url, timeout=1.0, deadline=1.5, max_retries=2, http_client=client
                ),
            )
        elapsed = time.monotonic() - started
    # The drip would last hours (a minute at most, then a cut connection, not a timeout):
    # ten times the deadline is a margin no load reaches, and far below what a missing
    # deadline costs.
    assert 1.4 <= elapsed < 15.0, elapsed
    assert "1.5 s deadline" in str(info.value)
    assert len(server.accepted) == 1  # no retry once the deadline has passed
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", BLOCKING)
def test_deadline_covers_the_waits_between_attempts(mode: str) -> None:
    # Retry-After 1 s under a 0.5 s deadline: waiting would end past it, so it is not waited.
    busy = Reply(503, {"errors": [{"code": "ServerError"}]}, {"Retry-After": "1"})
    with serve(busy) as server:
        search = bing(server.url, max_retry_wait=5.0, deadline=0.5)
        waits = recorded_waits(search)
        with pytest.raises(ServiceUnavailableError) as info:
            call(search, mode, "search", "q")
    assert len(server.requests) == 1
    assert waits == []
    assert "deadline" in str(info.value)


def test_deadline_is_validated_and_defaults_to_a_minute() -> None:
    assert BingTextSearch(KEY)._engine.deadline == 60.0
    assert BochaTextSearch(KEY, deadline=5)._engine.deadline == 5.0
    for bad in (0, -1, "5", True, float("nan")):
        with pytest.raises(ConfigurationError):
            BingTextSearch(KEY, deadline=bad)


# -- redirects never carry the key to another origin (#9) ---------------------------------


def run_with(mode: str, kind: str, make: Any, method: str = "search") -> Any:
    """Search with an owned client, or with an injected one that follows redirects itself."""
    if mode != "async":
        client = httpx.Client(follow_redirects=True) if kind == "injected" else None
        try:
            return call(make(client), mode, method, "q")
        finally:
            if client is not None:
                client.close()

    async def go() -> Any:
        client = httpx.AsyncClient(follow_redirects=True) if kind == "injected" else None
        connector = make(client)
        try:
            return await getattr(connector, method)("q")
        finally:
            await connector.aclose()
            if client is not None:
                await client.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["owned", "injected"])
@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_the_key_stays_home(
    mode: str, kind: str, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(Reply(200, BING_OK)) as elsewhere, serve() as server:
        server.default = Reply(status, b"", {"Location": elsewhere.url + "/v7.0/search?q=q"})
        with pytest.raises(ProviderError) as info:
            run_with(mode, kind, lambda client: bing(server.url, http_client=client))
    assert elsewhere.requests == []  # not even without the key
    assert len(server.requests) == 1  # not retried
    assert info.value.code == "cross_origin_redirect"
    assert info.value.status_code == status
    assert elsewhere.url.split("//")[1] in str(info.value)
    assert_no_key(info.value, caplog)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["owned", "injected"])
def test_a_same_origin_redirect_is_followed_with_the_key(mode: str, kind: str) -> None:
    with serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(308, b"", {"Location": "/v7.1/search?q=moved"}))
        results = run_with(mode, kind, lambda client: bing(server.url, http_client=client))
    assert len(results) == 1
    first, second = server.requests
    assert second.path == "/v7.1/search" and second.query == [("q", "moved")]
    assert second.headers["ocp-apim-subscription-key"] == KEY


@pytest.mark.parametrize("mode", MODES)
def test_a_307_keeps_the_post_body_and_an_https_downgrade_is_another_origin(mode: str) -> None:
    ok = {"code": 200, "data": {"webPages": {"value": []}}}
    with serve(Reply(200, ok)) as server:
        server.enqueue(Reply(307, b"", {"Location": server.url + "/v2/web-search"}))
        connector = BochaTextSearch(KEY, base_url=server.url)
        assert len(call(connector, mode, "search", "q")) == 0
        first, second = server.requests
        assert second.method == "POST" and second.body == first.body
        assert second.headers["authorization"] == f"Bearer {KEY}"
        # http -> https on the same host is not the same origin
        host = server.url.split("//")[1]
        server.enqueue(Reply(301, b"", {"Location": f"https://{host}/v1/web-search"}))
        with pytest.raises(ProviderError) as info:
            call(BochaTextSearch(KEY, base_url=server.url), mode, "search", "q")
    assert info.value.code == "cross_origin_redirect"


# -- an echoed key is scrubbed everywhere (#9) ---------------------------------------------


def _everything(error: BaseException) -> str:
    parts = [
        str(error),
        repr(error),
        "".join(traceback.format_exception(type(error), error, error.__traceback__)),
    ]
    for linked in _chain(error):
        parts += [str(linked), repr(linked), repr(getattr(linked, "args", ""))]
        for name in ("code", "sub_code", "hints", "message"):
            parts.append(repr(getattr(linked, name, None)))
    return "\n".join(parts)


ECHO_BING = Reply(
    401,
    {"errors": [{"code": KEY, "subCode": KEY, "message": f"invalid key {KEY}", "value": KEY}]},
    {"BingAPIs-TraceId": KEY, "X-Echo": KEY, "WWW-Authenticate": f"Bearer realm={KEY}"},
)
ECHO_BOCHA = Reply(
    200,
    {"code": KEY, "msg": f"bad key {KEY}", "log_id": KEY},
    {"X-Echo": KEY},
)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("provider", ["bing", "bocha", "bing-gateway"])
def test_a_key_the_server_echoes_is_scrubbed_everywhere(
    mode: str, provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # textsearch, httpx, httpcore and urllib3 log at DEBUG
    reply = ECHO_BOCHA if provider == "bocha" else ECHO_BING
    if provider == "bing-gateway":
        reply = Reply(200, {"error": {"code": "401", "message": KEY}}, {"X-Echo": KEY})
    with serve(reply) as server:
        if provider == "bocha":
            connector: Any = BochaTextSearch(KEY, base_url=server.url)
        else:
            connector = bing(server.url)
        with pytest.raises(TextSearchError) as info:
            call(connector, mode, "search", "q")
    assert server.requests  # the server did get the key, and sent it back
    text = _everything(info.value)
    assert KEY not in text
    assert "***" in text
    logged_by = ("urllib3",) if mode == "urllib3" else ("httpx", "httpcore")
    records = [r for r in caplog.records if r.name.split(".")[0] in logged_by]
    assert records, f"{logged_by} logged at DEBUG"
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in repr(record.__dict__)
    assert KEY not in caplog.text


def test_a_key_in_a_transport_error_message_is_scrubbed_from_the_chain() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"proxy said: {KEY}", request=request)

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(SearchTransportError) as info:
            BingTextSearch(KEY, http_client=client, max_retries=0).search_sync("q")
    assert KEY not in _everything(info.value)
    assert isinstance(info.value.__cause__, httpx.ConnectError)


# -- verify= and the decompressed size cap ----------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    pytest.importorskip("cryptography")
    from tests.emulators.web import make_certificate

    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.mark.parametrize("mode", MODES)
def test_verify_takes_a_ca_bundle_path_or_an_ssl_context(
    mode: str, certificate: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import ssl

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    cafile = certificate[0]
    with serve(Reply(200, BING_OK), tls=certificate) as server:
        assert server.url.startswith("https://")
        with pytest.raises(SearchTransportError):  # self-signed: refused by default
            call(bing(server.url, max_retries=0), mode, "search", "q")
        assert len(call(bing(server.url, verify=cafile), mode, "search", "q")) == 1
        context = ssl.create_default_context(cafile=cafile)
        assert len(call(bing(server.url, verify=context), mode, "search", "q")) == 1
        with pytest.warns(UserWarning, match="verify=False"):
            insecure = bing(server.url, verify=False)
        assert len(call(insecure, mode, "search", "q")) == 1


def test_verify_rejects_what_it_cannot_use(tmp_path: Any) -> None:
    with pytest.raises(ConfigurationError):
        BingTextSearch(KEY, verify=str(tmp_path / "missing.pem"))
    with pytest.raises(ConfigurationError):
        BochaTextSearch(KEY, verify=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_the_size_cap_counts_decompressed_bytes(mode: str) -> None:
    import gzip
    import json

    bomb = gzip.compress(b" " * (16 * 1024 * 1024))  # 16 MiB of spaces in ~16 KB
    assert len(bomb) < 200_000
    ok = gzip.compress(json.dumps(BING_OK).encode())
    with serve(Reply(200, ok, {"Content-Encoding": "gzip"})) as server:
        server.enqueue(Reply(200, bomb, {"Content-Encoding": "gzip"}))
        with pytest.raises(ResponseFormatError) as info:
            call(bing(server.url, max_retries=2), mode, "search", "q")
        assert "byte limit" in str(info.value)
        assert len(server.requests) == 1  # not retried
        assert len(call(bing(server.url), mode, "search", "q")) == 1  # a real gzip body reads


def test_body_reader_never_inflates_past_the_cap() -> None:
    import zlib

    from textsearch._http._guards import BodyReader, TooLarge

    compressor = zlib.compressobj(wbits=zlib.MAX_WBITS | 16)
    chunk = compressor.compress(b"\0" * (64 * 1024 * 1024)) + compressor.flush()
    reader = BodyReader(1024 * 1024, "gzip")
    with pytest.raises(TooLarge):
        reader.feed(chunk)  # one network chunk, 64 MiB inflated: stopped at 1 MiB + 1 byte
    reader = BodyReader(100, "deflate")
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    reader.feed(raw.compress(b'{"a": 1}') + raw.flush())  # raw deflate, as some servers send
    assert reader.finish() == b'{"a": 1}'
