"""fetch_pages: a deadline per page against drip servers, the event loop kept free, main content.

The drip server is a real socket on 127.0.0.1 that sends one byte a second, in the headers
or in the body: httpx's read timeout restarts with every byte, so only a total deadline
stops it.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from textsearch import InvalidRequestError, TextSearchResult
from textsearch.grounding import budget as budget_module
from textsearch.grounding import fetch_pages, fetch_pages_sync
from textsearch.grounding.budget import truncate_text

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"


class DripServer:
    """Answers every connection one byte per ``interval`` seconds, headers or body."""

    def __init__(self, where: str, interval: float = 1.0) -> None:
        self.where = where
        self.interval = interval
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def url(self, path: str = "/drip") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                if self.where == "body":
                    conn.sendall(HEAD)
                    payload = b"x" * 100_000
                else:
                    payload = HEAD + b"x" * 100
                for byte in payload:
                    if self.stop.wait(self.interval):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)


@pytest.fixture(params=["headers", "body"])
def drip(request: pytest.FixtureRequest) -> Iterator[DripServer]:
    server = DripServer(request.param)
    try:
        yield server
    finally:
        server.close()


def _result(link: str) -> TextSearchResult:
    return TextSearchResult(name="Drip", value="the snippet", link=link)


@pytest.mark.anyio
async def test_a_drip_server_is_cut_off_at_the_deadline(drip: DripServer) -> None:
    started = time.monotonic()
    (page,) = await fetch_pages([_result(drip.url())], allow_private=True, timeout=1.2)
    elapsed = time.monotonic() - started
    assert not page.ok and page.error == "timed out after 1.2 s"
    assert page.value == "the snippet"
    # The drip lasts minutes (headers) or hours (body): ten times the deadline is the margin.
    assert 1.1 <= elapsed < 12.0, elapsed


def test_the_sync_twin_has_the_same_deadline(drip: DripServer) -> None:
    started = time.monotonic()
    (page,) = fetch_pages_sync([_result(drip.url())], allow_private=True, timeout=1.2)
    elapsed = time.monotonic() - started
    assert not page.ok and page.error == "timed out after 1.2 s"
    assert 1.1 <= elapsed < 12.0, elapsed


# -- the event loop stays free -----------------------------------------------------------

BIG_HTML = (
    "<html><head><title>Big</title></head><body><main>"
    + "".join(f"<p>Paragraph {i} about retries and backoff.</p>" for i in range(42_000))
    + "</main></body></html>"
).encode()


class _BigPage:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                + f"Content-Length: {len(BIG_HTML)}\r\nConnection: close\r\n\r\n".encode()
                + BIG_HTML
            )


@pytest.mark.anyio
async def test_converting_a_big_page_never_blocks_the_event_loop() -> None:
    page_server = _BigPage()
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    try:
        (page,) = await fetch_pages(
            [_result(f"http://127.0.0.1:{page_server.port}/big.html")],
            allow_private=True,
            timeout=60,
            max_chars=1_000,
            max_bytes=5_000_000,
        )
    finally:
        done.set()
        await tick
        page_server.sock.close()
    assert page.ok and page.truncated and len(page.value or "") <= 1_000
    assert len(BIG_HTML) > 2_000_000
    # On the loop, converting 2.5 MB of HTML took seconds; in a worker thread the loop
    # keeps ticking (measured: the longest stall went from 7.6 s to under 0.3 s).
    # 1.5 s leaves room for a loaded CI machine; the old code stalled for 7.6 s.
    assert max(gaps) < 1.5, max(gaps)


def test_truncation_reads_only_what_the_limit_can_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = budget_module._cut_points

    def counting(text: str) -> list[int]:
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(budget_module, "_cut_points", counting)
    text = "word " * 400_000  # 2 MB
    cut, truncated = truncate_text(text, 1_000)
    assert truncated and len(cut) <= 1_000 and cut.endswith(" [truncated]")
    assert cut == truncate_text(text[:5_000], 1_000)[0]  # the same cut as on a short text
    assert seen and max(seen) <= 1_000 + 64


# -- main content ----------------------------------------------------------------------

ARTICLE = (
    "<html><head><title>Retry with backoff</title></head><body>"
    "<header><ul><li><a href='/'>Home</a></li><li><a href='/blog'>Blog</a></li>"
    "<li><a href='/about'>About us</a></li></ul></header>"
    "<div class='sidebar'><h3>Popular posts</h3><ul>"
    + "".join(f"<li><a href='/p{i}'>Unrelated popular post number {i}</a></li>" for i in range(12))
    + "</ul></div><div class='content'><h1>Retry with backoff</h1>"
    + "".join(
        f"<p>Paragraph {i}: when a call fails with a transient error, wait before retrying, "
        "and double the wait after each failure so that a struggling service can recover. "
        "Add random jitter so that many clients do not retry at the same moment.</p>"
        for i in range(6)
    )
    + "</div><div class='cookie'>We use cookies to improve your experience. Accept all.</div>"
    "<div class='footer'>Copyright 2024 Example Corp. Privacy policy. Terms of use.</div>"
    "</body></html>"
).encode()


class _Article:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
                    + f"Content-Length: {len(ARTICLE)}\r\n\r\n".encode()
                    + ARTICLE
                )


@pytest.mark.anyio
async def test_main_content_extraction_drops_the_page_chrome() -> None:
    server = _Article()
    link = f"http://127.0.0.1:{server.port}/article"
    try:
        (main,) = await fetch_pages([_result(link)], allow_private=True, extractor="trafilatura")
        (whole,) = await fetch_pages([_result(link)], allow_private=True, extractor="builtin")
        (auto,) = await fetch_pages([_result(link)], allow_private=True)
    finally:
        server.sock.close()
    assert main.ok and whole.ok
    assert main.name == whole.name == "Retry with backoff"
    assert "double the wait after each failure" in (main.value or "")
    for chrome in ("Unrelated popular post", "We use cookies", "Privacy policy"):
        assert chrome in (whole.value or "")  # the whole-page converter keeps it
        assert chrome not in (main.value or "")  # main content does not
    assert auto.value == main.value  # installed, so used by default


def test_extractor_is_checked_before_any_download(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    with pytest.raises(InvalidRequestError, match="extractor must be one of"):
        fetch_pages_sync([_result("http://127.0.0.1:9/")], extractor="readability")
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # not installed
    with pytest.raises(ImportError, match=r'pip install "textsearch-sdk\[fetch\]"'):
        fetch_pages_sync([_result("http://127.0.0.1:9/")], extractor="trafilatura")
