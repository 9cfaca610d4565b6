"""Wire-level faults for the Azure AI Search emulator (``emulator.answer_next(writer)``).

Each factory returns a writer: a function that gets the emulator's request handler and writes
the whole answer on the socket itself, byte for byte where that is the point (drips), or
breaks the connection (resets). Used by the hardening tests of the Azure connector.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable
from functools import cache
from http.server import BaseHTTPRequestHandler
from typing import Any

Writer = Callable[[BaseHTTPRequestHandler], None]

_OK_BODY = json.dumps({"value": [{"@search.score": 1.0, "id": "x", "title": "t"}]}).encode()


def _head(status: int, reason: str, headers: dict[str, str]) -> bytes:
    headers = {**headers, "Connection": "close"}
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def redirect(location: Callable[[str], str], status: int = 307) -> Writer:
    """A redirect to ``location(request path)`` (e.g. the same path on another server)."""

    def write(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(
            _head(
                status,
                "Temporary Redirect",
                {"Location": location(handler.path), "Content-Length": "0"},
            )
        )

    return write


@cache
def gzip_zeros(size: int) -> bytes:
    """``size`` zero bytes (a multiple of 1 MiB) as a gzip member of about size/1000 bytes."""
    block = bytes(1 << 20)
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    # After a full flush the compressor starts afresh, so every block compresses the same.
    piece = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    blocks = size // len(block)
    crc = 0
    for _ in range(blocks):
        crc = zlib.crc32(block, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    tail = b"\x03\x00" + struct.pack("<II", crc, size & 0xFFFFFFFF)  # final empty block
    return header + piece * blocks + tail


def gzip_bomb(size: int = 1 << 30, status: int = 200) -> Writer:
    """A JSON content type, ``Content-Encoding: gzip`` and ``size`` zero bytes compressed."""
    body = gzip_zeros(size)

    def write(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(
            _head(
                status,
                "OK" if status == 200 else "Error",
                {
                    "Content-Type": "application/json; charset=utf-8",
                    "Content-Encoding": "gzip",
                    "Content-Length": str(len(body)),
                },
            )
        )
        handler.wfile.write(body)

    return write


def drip(*, in_headers: bool, interval: float = 1.0, stop: threading.Event | None = None) -> Writer:
    """An answer sent one byte per ``interval`` seconds, in the headers or in the body.

    It never ends by itself before the client hangs up (or ``stop`` is set): a long header
    value or a long JSON string keeps it going.
    """

    def write(handler: BaseHTTPRequestHandler) -> None:
        filler = b"x" * 100_000
        if in_headers:
            head = b"HTTP/1.1 200 OK\r\nX-Slow: " + filler
            body = b""
        else:
            payload = b'{"value": [{"@search.score": 1.0, "id": "x", "title": "' + filler
            head = _head(
                200,
                "OK",
                {"Content-Type": "application/json", "Content-Length": str(len(payload) + 5)},
            )
            handler.wfile.write(head)
            handler.wfile.flush()
            head, body = payload, b""
        for i in range(len(head)):
            if stop is not None and stop.is_set():
                return
            handler.wfile.write(head[i : i + 1])
            handler.wfile.flush()
            time.sleep(interval)
        handler.wfile.write(body)

    return write


def reset_mid_body(sent: int = 40) -> Writer:
    """Headers promising a body, ``sent`` bytes of it, then a TCP reset."""

    def write(handler: BaseHTTPRequestHandler) -> None:
        body = _OK_BODY * 20
        handler.wfile.write(
            _head(200, "OK", {"Content-Type": "application/json", "Content-Length": str(len(body))})
        )
        handler.wfile.write(body[:sent])
        handler.wfile.flush()
        conn: Any = handler.connection
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()

    return write


def echo_key(status: int = 403, *, retry_after: str | None = None) -> Writer:
    """An error answer that repeats the request's ``api-key`` in its code, message and headers."""

    def write(handler: BaseHTTPRequestHandler) -> None:
        # The api-key, or else the bearer token of the Authorization header.
        bearer = (handler.headers.get("Authorization") or "").partition(" ")[2].strip()
        key = handler.headers.get("api-key") or bearer or "(none)"
        body = json.dumps(
            {
                "error": {
                    "code": f"InvalidKey:{key}",
                    "message": f"The api-key '{key}' is not valid for this service.",
                    "details": [{"code": key, "message": f"key={key}"}],
                }
            }
        ).encode()
        headers = {
            "Content-Type": "application/json",
            "Content-Length": str(len(body)),
            "X-Echo-Key": key,
        }
        if retry_after is not None:
            headers["Retry-After"] = retry_after
        handler.wfile.write(_head(status, "Error", headers))
        handler.wfile.write(body)

    return write


def deeply_nested(status: int = 400, depth: int = 100_000) -> Writer:
    """An error body nested ``depth`` levels deep (JSON arrays inside the error)."""
    body = b'{"error": {"code": "", "message": "x", "details": ' + b"[" * depth + b"]" * depth
    body += b"}}"

    def write(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(
            _head(
                status,
                "Error",
                {"Content-Type": "application/json", "Content-Length": str(len(body))},
            )
        )
        handler.wfile.write(body)

    return write


def raw_answer(status: int, body: bytes, headers: dict[str, str] | None = None) -> Writer:
    """``body`` as is with ``status`` (real captured payloads, BOM included)."""

    def write(handler: BaseHTTPRequestHandler) -> None:
        all_headers = {"Content-Type": "application/json; charset=utf-8"}
        all_headers.update(headers or {})
        all_headers["Content-Length"] = str(len(body))
        handler.wfile.write(_head(status, "Answer", all_headers))
        handler.wfile.write(body)

    return write
