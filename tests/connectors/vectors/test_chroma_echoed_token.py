"""Issue #33 item 8: a Chroma token given in ``headers=`` never shows, even when echoed.

A loopback server that answers every request with an error quoting the request's headers
(as some proxies and debug servers do): neither the exception, its chain, nor the text a
model gets from the tool may hold the token.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.connectors.vectors._support import CountingEmbedder
from textsearch import TextSearchError
from textsearch.plugins import create_search_function

pytest.importorskip("chromadb")

TOKEN = "chroma-tok-5f1e9a7c3b2d"


class _Echo(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        echoed = f"bad request; headers: {dict(self.headers)}"
        body = json.dumps({"error": "InvalidArgumentError", "message": echoed}).encode()
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _chain(exc: BaseException | None) -> str:
    seen = []
    while exc is not None and len(seen) < 10:
        seen.append(f"{type(exc).__name__}: {exc} {exc.args!r}")
        exc = exc.__cause__ or exc.__context__
    return "\n".join(seen)


@pytest.mark.parametrize(
    "headers",
    [{"X-Chroma-Token": TOKEN}, {"Authorization": f"Bearer {TOKEN}"}],
    ids=["x-chroma-token", "bearer"],
)
def test_an_echoed_header_token_is_never_shown(echo_url: str, headers: dict[str, str]) -> None:
    from textsearch.connectors.vectors import ChromaTextSearch

    search = ChromaTextSearch(echo_url, "docs", headers=headers, embedder=CountingEmbedder())
    try:
        with pytest.raises(TextSearchError) as caught:
            search.search_sync("retry")
        shown = _chain(caught.value) + repr(caught.value)
        assert "headers" in shown or "400" in shown or "bad request" in shown.lower()
        assert TOKEN not in shown
        answer = create_search_function(search, name="search").invoke_sync({"query": "retry"})
        assert TOKEN not in answer
    finally:
        search.close()
