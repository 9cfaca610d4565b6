"""A rerank server on 127.0.0.1 speaking Cohere's, Jina's, Voyage's and TEI's documented shapes.

Scores are the share of the query's words found in each document, answered sorted by
descending score (as every service does) with each result's input ``index``. Errors come
in each API's own body shape (PROVIDERS_RERANK.md). Scripted replies come first:
:meth:`FakeRerank.script` takes ``(status, body, headers)``; ``drip`` sends a valid body
one byte at a time.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATHS = {"cohere": "/v2/rerank", "jina": "/v1/rerank", "voyage": "/v1/rerank", "tei": "/rerank"}


def word_overlap(query: str, text: str) -> float:
    words = set(re.findall(r"\w+", query.lower()))
    found = set(re.findall(r"\w+", text.lower()))
    return len(words & found) / len(words) if words else 0.0


def error_body(api: str, status: int, message: str) -> Any:
    if api == "cohere":
        return {"id": "3f1c", "message": message}
    if api == "tei":
        return {"error": message, "error_type": "Validation" if status < 500 else "Backend"}
    return {"detail": message}  # Jina, Voyage


@dataclass
class Scripted:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    drip: float = 0.0  # seconds between bytes


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, reply: Scripted) -> None:
        body = reply.body
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if reply.drip:
            for i in range(len(data)):
                if self.server.fake.stopping.wait(reply.drip):
                    return
                try:
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                except OSError:
                    return
        else:
            self.wfile.write(data)

    def do_POST(self) -> None:
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with fake.lock:
            fake.requests.append({"path": self.path, "headers": dict(self.headers.items()),
                                  "body": raw, "at": time.monotonic()})  # fmt: skip
            scripted = fake.replies.popleft() if fake.replies else None
        if scripted is not None:
            self._send(scripted)
            return
        api = fake.api
        if self.path != PATHS[api]:
            self._send(Scripted(404, error_body(api, 404, f"no route {self.path}")))
            return
        if fake.key is not None and self.headers.get("Authorization") != f"Bearer {fake.key}":
            self._send(
                Scripted(401, b"" if api == "tei" else error_body(api, 401, "invalid api token"))
            )
            return
        body = json.loads(raw)
        texts = body["texts"] if api == "tei" else body["documents"]
        if not texts:
            self._send(Scripted(400, error_body(api, 400, "documents must not be empty")))
            return
        if api == "tei" and len(texts) > fake.max_batch:
            message = f"batch size {len(texts)} > maximum allowed batch size {fake.max_batch}"
            self._send(Scripted(422, error_body(api, 422, message)))
            return
        scored = sorted(
            ({"index": i, "score": word_overlap(body["query"], t)} for i, t in enumerate(texts)),
            key=lambda r: -r["score"],
        )
        if api == "tei":
            self._send(Scripted(200, scored))
            return
        results = [{"index": r["index"], "relevance_score": r["score"]} for r in scored]
        if api == "cohere":
            payload: Any = {"id": "07734bd2", "results": results,
                            "meta": {"api_version": {"version": "2"},
                                     "billed_units": {"search_units": 1}}}  # fmt: skip
        elif api == "voyage":
            payload = {"object": "list", "data": results, "model": body["model"],
                       "usage": {"total_tokens": 42}}  # fmt: skip
        else:
            payload = {"model": body["model"], "usage": {"total_tokens": 42}, "results": results}
        self._send(Scripted(200, payload))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, fake: FakeRerank) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeRerank:
    """The server, its script and its records (use :func:`fake_rerank`)."""

    def __init__(self, api: str, key: str | None, max_batch: int) -> None:
        self.api = api
        self.key = key
        self.max_batch = max_batch
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.replies: deque[Scripted] = deque()
        self.requests: list[dict[str, Any]] = []
        self._server = _Server(self)
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def script(self, *replies: Scripted) -> None:
        with self.lock:
            self.replies.extend(replies)

    def bodies(self) -> list[Any]:
        return [json.loads(r["body"]) for r in self.requests]


@contextmanager
def fake_rerank(api: str, *, key: str | None = None, max_batch: int = 32) -> Iterator[FakeRerank]:
    fake = FakeRerank(api, key, max_batch)
    fake._thread.start()
    try:
        yield fake
    finally:
        fake.stopping.set()
        fake._server.shutdown()
        fake._server.server_close()
        fake._thread.join(5)
