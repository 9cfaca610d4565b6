"""fetch_pages against real sockets: pages served on 127.0.0.1 by a server the tests start."""

from __future__ import annotations

import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from textsearch import InvalidRequestError, TextSearchResult, __version__
from textsearch.grounding import fetch_pages, fetch_pages_sync, format_results
from textsearch.grounding.fetch import check_address


def _compressed(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


def _gzip_bomb() -> bytes:
    """About 100 kB of gzip that inflates to 100 MB of text."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"word " * 200_000  # 1 MB
    return b"".join(packer.compress(block) for _ in range(100)) + packer.flush()


PAGE = (
    "<html><head><title>Retry guide</title><style>body{color:red}</style>"
    "<script>alert('x')</script></head><body><nav>Home | About | Login</nav>"
    "<main><h1>Retries</h1><p>Use exponential backoff with jitter.</p>"
    "<p>Cap the number of attempts.</p></main><footer>(c) 2024</footer></body></html>"
)


@dataclass
class Site:
    port: int
    requests: list[tuple[str, str]] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    bomb: bytes = b""

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def _make_handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str | None, **headers: str) -> None:
            self.send_response(status)
            if ctype:
                self.send_header("Content-Type", ctype)
            for k, v in headers.items():
                self.send_header(k.replace("_", "-"), v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            site.requests.append((self.path, self.headers.get("Host", "")))
            site.agents.append(self.headers.get("User-Agent", ""))
            path = self.path
            try:
                if path == "/page.html":
                    self._send(200, PAGE.encode(), "text/html; charset=utf-8")
                elif path == "/latin1.html":
                    body = "<title>Café</title><p>Crème brûlée</p>".encode("latin-1")
                    self._send(200, body, "text/html; charset=iso-8859-1")
                elif path == "/plain.txt":
                    self._send(200, b"Plain notes.\r\nSecond line.", "text/plain")
                elif path == "/r1":
                    self._send(302, b"", None, Location="/r2")
                elif path == "/r2":
                    self._send(301, b"", None, Location=site.url("/r3"))
                elif path == "/r3":
                    self._send(307, b"", None, Location="page.html")
                elif path.startswith("/loop/"):
                    n = int(path.rsplit("/", 1)[1])
                    self._send(302, b"", None, Location=f"/loop/{n + 1}")
                elif path == "/to-metadata":
                    self._send(302, b"", None, Location="http://169.254.169.254/latest/meta-data/")
                elif path == "/to-loopback2":
                    self._send(302, b"", None, Location=f"http://127.0.0.2:{site.port}/page.html")
                elif path == "/to-internal":
                    self._send(
                        302, b"", None, Location=f"http://intranet.test:{site.port}/page.html"
                    )
                elif path == "/big":
                    chunk = b"<p>" + b"word " * 2000 + b"</p>\n"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(chunk) * 500))
                    self.end_headers()
                    for _ in range(500):
                        if site.stop.is_set():
                            return
                        self.wfile.write(chunk)
                elif path == "/slow":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.end_headers()
                    for _ in range(600):  # trickles for 60 s unless the client gives up
                        if site.stop.is_set():
                            return
                        self.wfile.write(b"drip ")
                        self.wfile.flush()
                        time.sleep(0.1)
                elif path == "/page.gz":
                    body = _compressed(PAGE.encode(), 16 + zlib.MAX_WBITS)
                    self._send(200, body, "text/html", Content_Encoding="gzip")
                elif path == "/page.deflate":
                    body = _compressed(PAGE.encode(), -zlib.MAX_WBITS)  # raw, no zlib header
                    self._send(200, body, "text/html", Content_Encoding="deflate")
                elif path == "/page.br":
                    self._send(200, b"\x0b\x02\x80hi\x03", "text/html", Content_Encoding="br")
                elif path == "/bomb.gz":
                    self._send(200, site.bomb, "text/plain", Content_Encoding="gzip")
                elif path == "/image.png":
                    self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
                elif path == "/no-type":
                    self._send(200, b"<p>hi</p>", None)
                elif path == "/empty.html":
                    self._send(200, b"<script>only()</script>", "text/html")
                else:
                    self._send(404, b"<h1>Not found</h1>", "text/html")
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def site() -> Iterator[Site]:
    holder = Site(port=0)
    server = _QuietServer(("127.0.0.1", 0), _make_handler(holder))
    holder.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder
    finally:
        holder.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def resolver_for(table: dict[str, Sequence[str]], calls: list[str] | None = None) -> Any:
    async def resolve(host: str, port: int) -> Sequence[str]:
        if calls is not None:
            calls.append(host)
        if host not in table:
            raise OSError(f"no such host {host}")
        return table[host]

    return resolve


def result(link: str, name: str = "Result title", snippet: str = "the snippet") -> TextSearchResult:
    return TextSearchResult(name, snippet, link)


# -- pages served on 127.0.0.1 (allow_private=True) ---------------------------------------


@pytest.mark.anyio
async def test_html_and_plain_text_pages(site: Site) -> None:
    pages = await fetch_pages(
        [
            result(site.url("/page.html")),
            result(site.url("/plain.txt")),
            result(site.url("/latin1.html")),
        ],
        allow_private=True,
    )
    html, plain, latin = pages
    assert html.ok and html.error is None and html.status_code == 200
    assert html.content_type == "text/html"
    assert html.name == "Retry guide"
    assert (
        html.value
        == "Retries\n\nUse exponential backoff with jitter.\n\nCap the number of attempts."
    )
    assert html.original_snippet == "the snippet" and not html.truncated
    assert plain.ok and plain.value == "Plain notes.\nSecond line." and plain.name == "Result title"
    assert latin.ok and latin.name == "Café" and latin.value == "Crème brûlée"
    # A list of pages formats like any results.
    assert format_results([html], style="citations") == (
        "[1] Retry guide — Retries Use exponential backoff with jitter. "
        f"Cap the number of attempts. ({site.url('/page.html')})"
    )


@pytest.mark.anyio
async def test_redirect_chain_is_followed_and_each_hop_requested(site: Site) -> None:
    (page,) = await fetch_pages([result(site.url("/r1"))], allow_private=True)
    assert page.ok and page.name == "Retry guide"
    assert page.final_url == site.url("/page.html")
    assert [p for p, _ in site.requests] == ["/r1", "/r2", "/r3", "/page.html"]


@pytest.mark.anyio
async def test_too_many_redirects(site: Site) -> None:
    (page,) = await fetch_pages([result(site.url("/loop/0"))], allow_private=True, max_redirects=3)
    assert not page.ok and page.refused
    assert page.error == "too many redirects (more than 3)"
    assert page.value == "the snippet" and page.name == "Result title"
    assert [p for p, _ in site.requests] == ["/loop/0", "/loop/1", "/loop/2", "/loop/3"]


@pytest.mark.anyio
async def test_oversized_body_is_cut_at_max_bytes(site: Site) -> None:
    # The cap shows in what was kept (cut, and marked so), not in a wall-clock limit.
    (page,) = await fetch_pages([result(site.url("/big"))], allow_private=True, max_bytes=50_000)
    assert page.ok and page.truncated
    assert page.value is not None and 9_000 < len(page.value) <= 50_000


@pytest.mark.anyio
async def test_compressed_pages_are_decoded(site: Site) -> None:
    gz, raw_deflate, brotli = await fetch_pages(
        [
            result(site.url("/page.gz")),
            result(site.url("/page.deflate")),
            result(site.url("/page.br")),
        ],
        allow_private=True,
    )
    assert (
        gz.ok
        and gz.value
        == "Retries\n\nUse exponential backoff with jitter.\n\nCap the number of attempts."
    )
    assert raw_deflate.ok and raw_deflate.value == gz.value
    # Only encodings that can be inflated within the byte cap are read.
    assert not brotli.ok and brotli.refused and brotli.value == "the snippet"
    assert brotli.error == "unsupported content encoding br"


@pytest.mark.anyio
async def test_compression_bomb_never_inflates_past_the_byte_cap(site: Site) -> None:
    site.bomb = _gzip_bomb()
    tracemalloc.start()
    try:
        (page,) = await fetch_pages(
            [result(site.url("/bomb.gz"))], allow_private=True, max_bytes=50_000
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert page.ok and page.truncated
    assert page.value is not None and page.value.startswith("word word")
    assert len(page.value) <= 50_000
    # 100 MB of text behind ~100 kB of gzip: memory stays far below what inflating
    # one network chunk whole would take (about 64 MB).
    assert peak < 8_000_000


@pytest.mark.anyio
async def test_max_chars_cuts_the_text_visibly(site: Site) -> None:
    (page,) = await fetch_pages([result(site.url("/page.html"))], allow_private=True, max_chars=30)
    assert page.ok and page.truncated
    assert page.value == "Retries\n\nUse [truncated]"


@pytest.mark.anyio
async def test_slow_page_is_bounded_by_the_timeout(site: Site) -> None:
    started = time.monotonic()
    slow, fast = await fetch_pages(
        # 2 s: long enough for the plain page on a loaded machine, far below the 60 s trickle
        [result(site.url("/slow")), result(site.url("/plain.txt"))],
        allow_private=True,
        timeout=2,
    )
    elapsed = time.monotonic() - started
    assert not slow.ok and not slow.refused and slow.error == "timed out after 2 s"
    assert slow.value == "the snippet"
    assert fast.ok
    assert elapsed < 20  # ten times the timeout, a third of the trickle


@pytest.mark.anyio
async def test_non_text_404_and_empty_pages_keep_their_snippet(site: Site) -> None:
    pages = await fetch_pages(
        [
            result(site.url("/image.png")),
            result(site.url("/missing")),
            result(site.url("/no-type")),
            result(site.url("/empty.html")),
            result("ftp://127.0.0.1/file"),
            TextSearchResult("No link", "text", None),
        ],
        allow_private=True,
    )
    assert [(p.ok, p.refused, p.error) for p in pages] == [
        (False, True, "not a text page (content type image/png)"),
        (False, False, "HTTP 404"),
        (False, True, "not a text page (content type missing)"),
        (False, False, "the page has no readable text"),
        (False, True, "only http and https URLs are fetched, not ftp:"),
        (False, True, "the result has no link"),
    ]
    assert all(p.value == (p.original_snippet) for p in pages)
    assert pages[1].status_code == 404


def test_sync_twin_and_injected_client(site: Site) -> None:
    (page,) = fetch_pages_sync([result(site.url("/plain.txt"))], allow_private=True)
    assert page.ok and page.value == "Plain notes.\nSecond line."


@pytest.mark.anyio
async def test_injected_client_is_used_and_not_closed(site: Site) -> None:
    seen: list[str] = []

    async def hook(request: httpx.Request) -> None:
        seen.append(str(request.url))

    async with httpx.AsyncClient(event_hooks={"request": [hook]}) as client:
        (page,) = await fetch_pages(
            [result(site.url("/plain.txt"))], allow_private=True, http_client=client
        )
        assert not client.is_closed
    assert page.ok and seen == [site.url("/plain.txt")]


# -- refusals (allow_private=False): no request ever leaves ----------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("http://127.0.0.1:9/x", "refused: 127.0.0.1 is a loopback address"),
        ("http://10.1.2.3/x", "refused: 10.1.2.3 is a private address"),
        (
            "http://169.254.169.254/latest/meta-data/",
            "refused: 169.254.169.254 is a cloud metadata address",
        ),
        ("http://[::1]:8080/x", "refused: ::1 is a loopback address"),
        ("http://[::ffff:127.0.0.1]/x", "refused: ::ffff:7f00:1 is a private address"),
        ("http://[fd00:ec2::254]/", "refused: fd00:ec2::254 is a cloud metadata address"),
        ("http://0.0.0.0/", "refused: 0.0.0.0 is an unspecified address"),
        ("http://224.0.0.1/", "refused: 224.0.0.1 is a multicast address"),
        ("http://user:pw@example.com/", "URLs with credentials are not fetched"),
        ("file:///etc/passwd", "only http and https URLs are fetched, not file:"),
        ("javascript:alert(1)", "only http and https URLs are fetched, not javascript:"),
    ],
)
async def test_private_and_odd_targets_are_refused(link: str, reason: str) -> None:
    calls: list[str] = []
    (page,) = await fetch_pages([result(link)], resolver=resolver_for({}, calls))
    assert (page.ok, page.refused, page.error) == (False, True, reason)
    assert page.value == "the snippet" and page.name == "Result title"
    assert calls == []  # literal addresses are checked without any lookup


@pytest.mark.anyio
async def test_names_resolving_to_private_addresses_are_refused() -> None:
    calls: list[str] = []
    resolve = resolver_for(
        {
            "intranet.test": ["10.0.0.7"],
            "rebind.test": ["93.184.216.34", "127.0.0.1"],  # every address counts
            "v6.test": ["2606:4700::1111", "fe80::1%eth0"],
            "nat64.test": ["64:ff9b::a9fe:a9fe"],
            "sixtofour.test": ["2002:a00:1::1"],
        },
        calls,
    )
    pages = await fetch_pages(
        [
            result("http://intranet.test/wiki"),
            result("https://rebind.test/"),
            result("http://v6.test/"),
            result("http://nat64.test/"),
            result("http://sixtofour.test/"),
            result("http://nowhere.test/"),
        ],
        resolver=resolve,
    )
    assert [p.error for p in pages] == [
        "refused intranet.test: 10.0.0.7 is a private address",
        "refused rebind.test: 127.0.0.1 is a loopback address",
        "refused v6.test: fe80::1 is a link-local address",
        "refused nat64.test: 64:ff9b::a9fe:a9fe is a reserved address",
        "refused sixtofour.test: 2002:a00:1::1 is an IPv6 form of 10.0.0.1, a private address",
        "cannot resolve nowhere.test: no such host nowhere.test",
    ]
    assert [p.refused for p in pages] == [True] * 5 + [False]
    assert sorted(calls) == sorted(
        ["intranet.test", "rebind.test", "v6.test", "nat64.test", "sixtofour.test", "nowhere.test"]
    )


@pytest.mark.anyio
async def test_connection_is_pinned_to_the_checked_address_with_the_original_host(
    site: Site,
) -> None:
    # A public-looking name, resolved (by the injected resolver) to the test server, which is
    # allowed by network: the request goes to the checked IP and carries the original Host.
    resolve = resolver_for({"docs.public.test": ["127.0.0.1"]})
    (page,) = await fetch_pages(
        [result(site.url("/page.html", host="docs.public.test"))],
        resolver=resolve,
        allow_networks=["127.0.0.1/32"],
    )
    assert page.ok and page.final_url == site.url("/page.html", host="docs.public.test")
    assert site.requests == [("/page.html", f"docs.public.test:{site.port}")]
    assert site.agents == [f"textsearch-sdk/{__version__} (page fetcher)"]


@pytest.mark.anyio
async def test_redirect_to_a_private_address_is_refused_at_the_hop(site: Site) -> None:
    resolve = resolver_for({"docs.public.test": ["127.0.0.1"], "intranet.test": ["10.0.0.7"]})
    pages = await fetch_pages(
        [
            result(site.url("/to-metadata", host="docs.public.test")),
            result(site.url("/to-internal", host="docs.public.test")),
            result(site.url("/r1", host="docs.public.test")),
        ],
        resolver=resolve,
        allow_networks=["127.0.0.1/32"],
        concurrency=1,
    )
    meta, internal, fine = pages
    assert (meta.ok, meta.refused) == (False, True)
    assert meta.error == "refused: 169.254.169.254 is a cloud metadata address"
    assert (internal.ok, internal.refused) == (False, True)
    assert internal.error == "refused intranet.test: 10.0.0.7 is a private address"
    assert meta.value == internal.value == "the snippet"
    # The redirect chain on the allowed host is followed, each hop pinned and re-checked;
    # its absolute hop to 127.0.0.1 by address is allowed by the network allow-list.
    assert fine.ok and fine.name == "Retry guide"
    paths = [p for p, _ in site.requests]
    assert paths == ["/to-metadata", "/to-internal", "/r1", "/r2", "/r3", "/page.html"]


@pytest.mark.anyio
async def test_redirect_to_another_loopback_address_is_refused(site: Site) -> None:
    # Only 127.0.0.1 is allowed; the hop to 127.0.0.2 must be checked on its own and refused
    # (without the per-hop check it would be tried, and fail to connect instead).
    resolve = resolver_for({"docs.public.test": ["127.0.0.1"]})
    (page,) = await fetch_pages(
        [result(site.url("/to-loopback2", host="docs.public.test"))],
        resolver=resolve,
        allow_networks=["127.0.0.1/32"],
    )
    assert (page.ok, page.refused) == (False, True)
    assert page.error == "refused: 127.0.0.2 is a loopback address"
    assert [p for p, _ in site.requests] == ["/to-loopback2"]


def test_check_address_refuses_site_local_and_6to4_relay() -> None:
    # ipaddress calls both global; neither is a public web server's address
    assert check_address("fec0::1") == "fec0::1 is a site-local address"
    assert check_address("feff::1") == "feff::1 is a site-local address"
    assert check_address("192.88.99.1") == "192.88.99.1 is a 6to4 relay address"
    assert check_address("192.88.100.1") is None


def test_check_address_table() -> None:
    assert check_address("93.184.216.34") is None
    assert check_address("2606:4700::1111") is None
    assert check_address("100.64.0.1") == "100.64.0.1 is not a public address"
    assert check_address("168.63.129.16") == "168.63.129.16 is a cloud metadata address"
    assert (
        check_address("192.168.1.1", [__import__("ipaddress").ip_network("192.168.0.0/16")]) is None
    )
    assert check_address("not-an-ip") == "'not-an-ip' is not an IP address"


def test_bad_arguments_fail_before_any_request() -> None:
    for kwargs in (
        {"max_chars": 0},
        {"timeout": 0},
        {"max_redirects": -1},
        {"concurrency": 0},
        {"allow_networks": ["nope"]},
        {"allow_private": "no"},
        {"max_chars": True},
    ):
        with pytest.raises(InvalidRequestError):
            fetch_pages_sync([result("http://example.com/")], **kwargs)  # type: ignore[arg-type]
    # A misspelt setting is named, not dropped (it would otherwise silently keep a default).
    with pytest.raises(InvalidRequestError, match="unknown options: max_char, timout"):
        fetch_pages_sync([result("http://example.com/")], max_char=10, timout=1)  # type: ignore[call-arg]


@pytest.mark.anyio
async def test_international_names_are_resolved_in_their_ascii_form() -> None:
    calls: list[str] = []
    resolve = resolver_for({"xn--bcher-kva.test": ["10.9.8.7"]}, calls)
    (page,) = await fetch_pages([result("http://bücher.test/katalog")], resolver=resolve)
    assert calls == ["xn--bcher-kva.test"]
    assert page.error == "refused xn--bcher-kva.test: 10.9.8.7 is a private address"
