"""A small OpenAI-compatible embeddings server on 127.0.0.1 (real sockets, its own thread).

``POST /v1/embeddings`` answers as OpenAI does: one vector per input from a deterministic
bag-of-words model (texts sharing words get close vectors), ``data`` in *reverse* order with
each item's ``index`` (so a client that ignores ``index`` gets the order wrong), ``dimensions``
honoured, ``encoding_format: base64`` as little-endian float32. A wrong key is a 401 and an
unknown model a 404 in OpenAI's error shape; scripted replies (:meth:`FakeOpenAI.fail_next`)
come first.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODELS = {"fake-embed-small": 16, "fake-embed-large": 64}


def bag_of_words(text: str, dimensions: int) -> list[float]:
    """A unit vector from the words of ``text`` (stable across processes and machines)."""
    vector = [0.0] * dimensions
    for word in text.lower().split():
        digest = hashlib.sha256(word.strip(".,!?").encode()).digest()
        vector[int.from_bytes(digest[:4], "little") % dimensions] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str, code: str | None) -> None:
        error = {"message": message, "type": kind, "param": None, "code": code}
        self._reply(status, {"error": error})

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        with fake.lock:
            fake.requests.append(
                {"path": self.path, "headers": dict(self.headers.items()), "body": raw}
            )
            scripted = fake.script.popleft() if fake.script else None
        if scripted is not None:
            self._reply(*scripted)
            return
        if self.path.split("?")[0] != "/v1/embeddings":
            self._error(404, f"Invalid URL (POST {self.path})", "invalid_request_error", None)
            return
        if fake.key is not None and self.headers.get("Authorization") != f"Bearer {fake.key}":
            self._error(
                401,
                "Incorrect API key provided. You can find your API key at the dashboard.",
                "invalid_request_error",
                "invalid_api_key",
            )
            return
        body = json.loads(raw)
        model, texts = body.get("model"), body.get("input")
        if model not in MODELS:
            self._error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            )
            return
        if isinstance(texts, str):
            texts = [texts]
        if not texts or any(not isinstance(t, str) or not t for t in texts):
            self._error(
                400,
                "'$.input' is invalid. Please check the API reference.",
                "invalid_request_error",
                None,
            )
            return
        dimensions = body.get("dimensions") or MODELS[model]
        data = []
        for index, text in enumerate(texts):
            vector: Any = bag_of_words(text, dimensions)
            if body.get("encoding_format") == "base64":
                vector = base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": vector})
        tokens = sum(len(t.split()) for t in texts)
        self._reply(
            200,
            {
                "object": "list",
                "data": data[::-1],
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, fake: FakeOpenAI) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeOpenAI:
    """The server, its records and its script of error replies."""

    def __init__(self, key: str | None = None) -> None:
        self.key = key
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.script: deque[tuple[int, Any, dict[str, str]]] = deque()
        self._server = _Server(self)
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host!s}:{port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def fail_next(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        with self.lock:
            self.script.append((status, body, headers or {}))

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r["body"]) for r in self.requests]


@contextmanager
def fake_openai(key: str | None = None) -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI(key)
    fake._thread.start()
    try:
        yield fake
    finally:
        fake._server.shutdown()
        fake._server.server_close()
        fake._thread.join(5)
