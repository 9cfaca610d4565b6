"""The blocking fast path (``transport="urllib3"`` / ``"fast"``): what is its own (#15).

Every behaviour shared with the httpx blocking path (retries, Retry-After, timeouts, the
deadline against a dripping server, the size cap, redirects, TLS, key scrubbing) runs in
``tests/test_http.py`` on both transports (mode "urllib3"). Here: choosing it, threads and
the pool, proxies, trust settings, logs, and connection reuse after an unread body.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import ssl
import subprocess
import sys
import threading
import warnings
from typing import Any

import httpx
import httpx2
import pytest

from tests.emulators.web import Reply, serve
from tests.test_http import BING_OK, KEY, bing
from textsearch import (
    BochaTextSearch,
    ConfigurationError,
    InvalidRequestError,
    ResponseFormatError,
    __version__,
)
from textsearch._http._transports._urllib3 import Urllib3Transport


def blocking(connector: Any) -> Any:
    return connector._engine._blocking_path()


def fast_async(connector: Any) -> Any:
    return connector._engine._fast_path()


# -- choosing it -----------------------------------------------------------------------------


def test_transport_values_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEXTSEARCH_TRANSPORT", raising=False)
    assert isinstance(blocking(bing("http://x", transport="urllib3")), Urllib3Transport)
    assert fast_async(bing("http://x", transport="urllib3")) is None  # async stays on httpx
    both = bing("http://x", transport="fast")
    assert isinstance(blocking(both), Urllib3Transport) and fast_async(both) is not None
    assert blocking(bing("http://x", transport="aiohttp")) is None
    assert blocking(bing("http://x", transport="httpx")) is None
    # urllib3 is imported (by this module), yet auto stays on httpx: respx mocks keep working
    assert "urllib3" in sys.modules
    assert blocking(bing("http://x")) is None
    for value, sync_fast, async_fast in (
        ("urllib3", True, False),
        ("fast", True, True),
        ("aiohttp", False, True),
        ("httpx", False, False),
        ("curl", False, False),  # an unknown value in the environment is ignored
    ):
        monkeypatch.setenv("TEXTSEARCH_TRANSPORT", value)
        connector = bing("http://x")
        assert (blocking(connector) is not None) is sync_fast, value
        assert (fast_async(connector) is not None) is async_fast, value
    monkeypatch.setenv("TEXTSEARCH_TRANSPORT", "fast")
    assert blocking(bing("http://x", transport="httpx")) is None  # the argument wins
    with pytest.raises(ConfigurationError, match="urllib3"):
        bing("http://x", transport="curl")


@pytest.mark.parametrize("library", ["httpx", "httpx2"])
def test_an_injected_blocking_client_is_used_as_given(library: str) -> None:
    client: Any = httpx.Client() if library == "httpx" else httpx2.Client()
    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url, http_client=client, transport="fast")
        assert blocking(connector) is None
        assert len(connector.search_sync("q")) == 1
        connector.close()
        assert not client.is_closed
    assert server.requests[0].headers["user-agent"] != f"textsearch-sdk/{__version__} (urllib3)"
    client.close()
    # an injected async client leaves the blocking path to urllib3
    aclient = httpx.AsyncClient()
    assert blocking(bing("http://x", http_client=aclient, transport="urllib3")) is not None
    asyncio.run(aclient.aclose())


def test_import_textsearch_and_a_default_sync_search_never_import_urllib3() -> None:
    code = (
        "import os, sys, httpx\n"
        "os.environ.pop('TEXTSEARCH_TRANSPORT', None)\n"
        "from textsearch import BingTextSearch\n"
        "c = BingTextSearch('k' * 20,\n"
        "    http_client=httpx.Client(transport=httpx.MockTransport(\n"
        "        lambda r: httpx.Response(200, json={'webPages': {'value': []}}))))\n"
        "c.search_sync('q')\n"
        "BingTextSearch('k' * 20)._engine._blocking_path()\n"
        "print('urllib3' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- threads and the pool --------------------------------------------------------------------


def test_sixteen_threads_share_one_connector_on_at_most_ten_connections() -> None:
    with serve(Reply(200, BING_OK, delay=0.01)) as server:
        connector = bing(server.url, transport="urllib3")
        results: list[int] = []
        errors: list[BaseException] = []
        start = threading.Barrier(16)

        def work() -> None:
            start.wait()
            try:
                for _ in range(10):
                    results.append(len(connector.get_text_search_results_sync("q")))
            except BaseException as exc:  # reported below, not swallowed
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        connector.close()
    assert errors == []
    assert results == [1] * 160
    assert len(server.requests) == 160
    assert 2 <= server.connections <= 10  # threads overlapped, and waited for the pool of 10


def test_the_connection_is_reused_unless_a_body_was_left_unread() -> None:
    with serve(Reply(200, BING_OK)) as server:
        connector = bing(server.url, transport="urllib3")
        assert len(connector.search_sync("q")) == 1
        assert len(connector.search_sync("q")) == 1
        assert server.connections == 1
        server.enqueue(Reply(200, oversize=11 * 1024 * 1024))
        with pytest.raises(ResponseFormatError):
            connector.search_sync("q")
        assert len(connector.search_sync("q")) == 1  # a fresh connection, not the spoilt one
        assert server.connections == 2
        server.enqueue(Reply(308, b"x" * 1000, {"Location": "/v7.1/search"}))
        assert len(connector.search_sync("q")) == 1
        connector.close()
        assert len(connector.search_sync("q")) == 1  # usable again after close
        connector.close()
    assert server.connections == 4
    assert len(server.requests) == 7


def test_unencodable_text_is_refused_before_anything_is_sent() -> None:
    with serve(Reply(200, {"code": 200, "data": {"webPages": {"value": []}}})) as server:
        for connector in (
            bing(server.url, transport="urllib3"),
            BochaTextSearch(KEY, base_url=server.url, transport="urllib3"),
        ):
            with pytest.raises(InvalidRequestError) as info:
                connector.search_sync("lone \ud800 surrogate")
            assert info.value.__cause__ is None
            connector.close()
    assert server.requests == []
    assert server.connections == 0


# -- proxies and trust, as httpx takes them from the environment ------------------------------


def test_the_proxy_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(Reply(200, BING_OK)) as proxy, serve(Reply(200, BING_OK)) as direct:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "")
        connector = bing("http://bing.invalid", transport="urllib3")
        assert len(connector.search_sync("q")) == 1
        connector.close()
        assert proxy.requests[0].path == "/v7.0/search"
        assert proxy.requests[0].headers["host"] == "bing.invalid"
        assert proxy.requests[0].headers["ocp-apim-subscription-key"] == KEY
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        connector = bing(direct.url, transport="urllib3")
        assert len(connector.search_sync("q")) == 1
        connector.close()
    assert len(proxy.requests) == 1 and len(direct.requests) == 1


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    pytest.importorskip("cryptography")
    from tests.emulators.web import make_certificate

    return make_certificate(tmp_path_factory.mktemp("tls"))


def test_ssl_cert_file_is_trusted_like_httpx(
    certificate: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve(Reply(200, BING_OK), tls=certificate) as server:
        monkeypatch.setenv("SSL_CERT_FILE", certificate[0])
        for transport in ("httpx", "urllib3"):
            connector = bing(server.url, transport=transport)
            assert len(connector.search_sync("q")) == 1
            connector.close()
    assert {r.headers["user-agent"] for r in server.requests} == {
        f"textsearch-sdk/{__version__} (python-httpx)",
        f"textsearch-sdk/{__version__} (urllib3)",
    }


def test_an_unverified_context_is_left_as_given_and_warns_only_at_construction(
    certificate: tuple[str, str],
) -> None:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with serve(Reply(200, BING_OK), tls=certificate) as server:
        connector = bing(server.url, verify=context, transport="urllib3")
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert len(connector.search_sync("q")) == 1
            assert len(connector.search_sync("q")) == 1
        connector.close()
        with pytest.warns(UserWarning, match="verify=False"):
            insecure = bing(server.url, verify=False, transport="urllib3")
        with warnings.catch_warnings(record=True) as later:
            warnings.simplefilter("always")
            assert len(insecure.search_sync("q")) == 1
        insecure.close()
    assert seen == [] and later == []  # urllib3's per-request InsecureRequestWarning is not raised
    assert context.verify_mode == ssl.CERT_NONE and not context.check_hostname


# -- logs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["httpx", "urllib3"])
def test_the_request_line_logged_by_the_transport_never_shows_the_key(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Keys travel in headers, never in the URL; a server that redirects (same origin) to a
    # URL carrying the key puts it in the request line that httpx and urllib3 log.
    caplog.set_level(logging.DEBUG)
    with serve(Reply(200, BING_OK)) as server:
        server.enqueue(Reply(302, b"", {"Location": f"/v7.0/search?token={KEY}&q=q"}))
        connector = bing(server.url, transport=transport)
        assert len(connector.search_sync("q")) == 1
        connector.close()
    assert server.requests[1].query == [("token", KEY), ("q", "q")]  # it was followed
    library = "urllib3" if transport == "urllib3" else "httpx"
    lines = [r.getMessage() for r in caplog.records if r.name.split(".")[0] == library]
    assert any("token=***" in line for line in lines), lines
    assert KEY not in caplog.text
    for record in caplog.records:
        assert KEY not in repr(record.__dict__)


def test_more_origins_than_pooled_ones_still_answer() -> None:
    # A transport keeps NUM_POOLS origins; an evicted origin's pool is closed, and a URL
    # whose cached pool was closed goes back through the manager.
    import time
    from contextlib import ExitStack

    from textsearch._http import HttpRequest
    from textsearch._http._transports._urllib3 import NUM_POOLS

    transport = Urllib3Transport(httpx.Timeout(5.0), True)
    with ExitStack() as stack:
        servers = [stack.enter_context(serve(Reply(200, b"ok"))) for _ in range(NUM_POOLS + 2)]
        for _ in range(2):
            for server in servers:
                request = HttpRequest("GET", server.url + "/x", (("q", "1"),))
                response, url = transport.send(request, time.monotonic() + 5)
                try:
                    assert transport.read(response, 100, time.monotonic() + 5) == b"ok"
                finally:
                    transport.release(response)
                assert url == server.url + "/x?q=1"
        transport.close()
    assert all(len(s.requests) == 2 for s in servers)
    assert all(s.requests[1].query == [("q", "1")] for s in servers)


def test_a_missing_urllib3_is_a_configuration_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import textsearch._http._transports._httpx as transport_module

    monkeypatch.setattr(transport_module, "urllib3_installed", lambda: False)
    for value in ("urllib3", "fast"):
        with pytest.raises(ConfigurationError, match=r"textsearch-sdk\[fast\]"):
            bing("http://x", transport=value)
    monkeypatch.setenv("TEXTSEARCH_TRANSPORT", "urllib3")
    assert blocking(bing("http://x")) is None  # the environment asks; auto falls back to httpx


class _ConnectProxy:
    """An HTTP CONNECT proxy on 127.0.0.1 that tunnels bytes both ways; records each target."""

    def __init__(self) -> None:
        import socket

        self.targets: list[str] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self._sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> _ConnectProxy:
        self._start(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(5)
        self._sock.close()

    def _start(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self._start(self._tunnel, conn)

    def _tunnel(self, conn: Any) -> None:
        import socket

        conn.settimeout(5)
        head = b""
        while b"\r\n\r\n" not in head:
            head += conn.recv(4096)
        target = head.split(b" ")[1].decode()
        self.targets.append(target)
        host, port = target.rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)), timeout=5)
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self._start(self._pipe, upstream, conn)
        self._pipe(conn, upstream)

    def _pipe(self, source: Any, sink: Any) -> None:
        source.settimeout(0.1)
        try:
            while not self._stop.is_set():
                try:
                    data = source.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for side in (source, sink):
                try:
                    side.close()
                except OSError:
                    pass


@pytest.mark.parametrize("transport", ["httpx", "urllib3"])
def test_https_goes_through_a_connect_proxy_from_the_environment(
    transport: str, certificate: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve(Reply(200, BING_OK), tls=certificate) as server, _ConnectProxy() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "")
        connector = bing(server.url, verify=certificate[0], transport=transport)
        assert len(connector.search_sync("q")) == 1
        assert len(connector.search_sync("q")) == 1
        connector.close()
    assert proxy.targets == [server.url.split("//")[1]]  # one tunnel, kept for both
    assert server.requests[0].headers["ocp-apim-subscription-key"] == KEY


@pytest.mark.parametrize("transport", ["httpx", "urllib3"])
def test_threads_past_the_pool_wait_for_it_up_to_the_pool_timeout(transport: str) -> None:
    # 12 threads, a pool of 10 and a slow server: two threads wait for a connection, and
    # give up after timeout.pool as a timeout (never by opening an 11th connection).
    from textsearch import SearchTimeoutError

    with serve(Reply(200, BING_OK, delay=1.5)) as server:
        connector = bing(
            server.url, transport=transport, max_retries=0, timeout=httpx.Timeout(5.0, pool=0.2)
        )
        outcomes: list[Any] = []
        start = threading.Barrier(12)

        def work() -> None:
            start.wait()
            try:
                outcomes.append(len(connector.search_sync("q")))
            except SearchTimeoutError as exc:
                outcomes.append(exc)

        threads = [threading.Thread(target=work) for _ in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        connector.close()
    timeouts = [o for o in outcomes if isinstance(o, SearchTimeoutError)]
    assert sorted(o for o in outcomes if isinstance(o, int)) == [1] * 10
    assert len(timeouts) == 2
    assert all(isinstance(t.__cause__, httpx.PoolTimeout) for t in timeouts)
    assert server.connections == 10


def test_urllib3_errors_map_to_the_httpx_errors_that_mean_the_same() -> None:
    from urllib3 import exceptions as u

    from textsearch._http._redact import register_secret
    from textsearch._http._transports._urllib3 import _as_httpx_error

    register_secret(KEY)
    cases: list[tuple[BaseException, type[BaseException]]] = [
        (u.NewConnectionError(None, f"refused {KEY}"), httpx.ConnectError),  # type: ignore[arg-type]
        (u.NameResolutionError("h", None, OSError()), httpx.ConnectError),  # type: ignore[arg-type]
        (u.ConnectTimeoutError("slow connect"), httpx.ConnectTimeout),
        (u.ReadTimeoutError(None, "/", "slow read"), httpx.ReadTimeout),  # type: ignore[arg-type]
        (TimeoutError("socket"), httpx.ReadTimeout),
        (u.EmptyPoolError(None, "pool"), httpx.PoolTimeout),  # type: ignore[arg-type]
        (u.ProxyError("proxy", OSError()), httpx.ProxyError),
        (u.SSLError("bad certificate"), httpx.ConnectError),
        (u.ProtocolError("Connection aborted."), httpx.RemoteProtocolError),
        (ConnectionResetError("reset"), httpx.ReadError),
        (u.URLSchemeUnknown("ftp"), httpx.UnsupportedProtocol),
        (u.HTTPError("other"), httpx.TransportError),
    ]
    for error, expected in cases:
        mapped = _as_httpx_error(error)
        assert type(mapped) is expected, (error, mapped)
        assert KEY not in str(mapped)


@pytest.mark.parametrize("transport", ["httpx", "urllib3", "aiohttp"])
def test_proxy_credentials_from_the_environment_go_to_the_proxy_only(
    monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    # HTTP_PROXY=http://user:secret@host: every transport sends the credentials as
    # Proxy-Authorization to the proxy (never as the service's Authorization).
    with serve(Reply(200, BING_OK)) as proxy:
        host_port = proxy.url.split("//")[1]
        monkeypatch.setenv("HTTP_PROXY", f"http://agent:s3cret@{host_port}")
        monkeypatch.setenv("NO_PROXY", "")
        connector = bing("http://bing.invalid", transport=transport)
        if transport == "aiohttp":

            async def go() -> Any:
                async with connector:
                    return await connector.search("q")

            assert len(asyncio.run(go())) == 1
        else:
            assert len(connector.search_sync("q")) == 1
            connector.close()
    (request,) = proxy.requests
    assert request.headers["host"] == "bing.invalid"
    expected = "Basic " + base64.b64encode(b"agent:s3cret").decode()
    assert request.headers["proxy-authorization"] == expected
    assert "authorization" not in request.headers
