"""A small SearXNG look-alike on 127.0.0.1: its ``/search`` JSON API, pages and failure modes.

A real SearXNG instance cannot be installed in the test environment, so the connector's
integration tests talk to this server over real sockets. It serves a fixed corpus in pages of
``page_size`` (SearXNG has no count parameter), answers 403 with an HTML page when the JSON
format is "off" (as an instance without ``json`` in ``search.formats`` does), can answer a
bot-check HTML page with 200, and records every request.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


def make_result(i: int) -> dict[str, Any]:
    """One result in the shape SearXNG's JSON format gives."""
    return {
        "url": f"https://site{i % 3}.example/page-{i}",
        "title": f"Result {i} &amp; friends",
        "content": f"Snippet <b>{i}</b> of the corpus.",
        "engine": "duckduckgo",
        "engines": ["duckduckgo", "brave"],
        "positions": [i + 1, i + 2],
        "score": 2.0 / (i + 1),
        "category": "general",
        "publishedDate": "2026-11-01T10:00:00" if i % 2 == 0 else None,
        "parsed_url": ["https", f"site{i % 3}.example", f"/page-{i}", "", "", ""],
        "template": "default.html",
        "thumbnail": None,
        "priority": "",
    }


@dataclass
class SearxngEmulator:
    """Settings and records of one emulated instance."""

    total: int = 25
    page_size: int = 10
    json_enabled: bool = True
    bot_check: bool = False
    overlap: int = 0  # results of the previous page repeated at the top of the next one
    delay: float = 0.0
    status_script: list[int] = field(default_factory=list)  # statuses to answer first
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    def page(self, pageno: int) -> list[dict[str, Any]]:
        start = (pageno - 1) * self.page_size
        first = max(0, start - self.overlap) if pageno > 1 else 0
        return [make_result(i) for i in range(first, min(start + self.page_size, self.total))]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to report

    def do_GET(self) -> None:
        emulator: SearxngEmulator = self.server.emulator
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        emulator.requests.append(
            {
                "path": parts.path,
                "query": query,
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
        )
        if emulator.delay:
            time.sleep(emulator.delay)
        if emulator.status_script:
            status = emulator.status_script.pop(0)
            self._send(status, b"<html><body>Too Many Requests</body></html>", "text/html")
            return
        if parts.path != "/search":
            self._send(404, b"<html>Not Found</html>", "text/html")
            return
        if query.get("format") == "json" and not emulator.json_enabled:
            self._send(403, b"<html><body>403 Forbidden</body></html>", "text/html")
            return
        if emulator.bot_check:
            self._send(
                200, b"<!DOCTYPE html><html><body>Are you a robot?</body></html>", "text/html"
            )
            return
        pageno = int(query.get("pageno") or 1)
        body = {
            "query": query.get("q", ""),
            "number_of_results": 0,
            "results": emulator.page(pageno),
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": ["related search"],
            "unresponsive_engines": [["google", "timeout"]] if pageno == 1 else [],
        }
        self._send(200, json.dumps(body).encode(), "application/json")


@contextmanager
def searxng(**settings: Any) -> Iterator[SearxngEmulator]:
    """Run an emulated instance for the duration of a ``with`` block."""
    emulator = SearxngEmulator(**settings)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.block_on_close = False  # do not wait for a deliberately slow answer
    server.emulator = emulator  # type: ignore[attr-defined]
    host, port = server.server_address[:2]
    emulator.url = f"http://{host!s}:{port}"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    try:
        yield emulator
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
