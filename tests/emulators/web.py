"""A scriptable HTTP server on 127.0.0.1 for the web connectors' integration tests.

Each request takes the next scripted :class:`Reply` (or the default one): a status, headers
and body, optionally after a delay, as an oversized body, or as a dropped connection. The
server records every request and counts accepted connections. Real sockets, no mocks.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Reply:
    """One scripted answer."""

    status: int = 200
    body: Any = b""  # bytes, str, or a JSON-able object
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    drop: bool = False  # close the connection without answering
    oversize: int = 0  # send this many bytes of filler instead of the body
    chunked: bool = False  # with oversize: no Content-Length, chunked transfer


@dataclass
class Recorded:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes
    at: float


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, emulator: WebEmulator) -> None:
        self.emulator = emulator
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        with self.emulator.lock:
            self.emulator.connections += 1
        return conn, addr


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        emulator = self.server.emulator
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        record = Recorded(
            self.command,
            parts.path,
            parse_qsl(parts.query, keep_blank_values=True),
            {k.lower(): v for k, v in self.headers.items()},
            body,
            time.monotonic(),
        )
        with emulator.lock:
            emulator.requests.append(record)
            reply = emulator.script.popleft() if emulator.script else emulator.default
        if reply.delay and emulator.stopping.wait(reply.delay):
            return
        if reply.drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        try:
            self._answer(reply)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _answer(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.oversize:
            self.send_header("Content-Type", "application/json")
            filler = b" " * 65536
            if reply.chunked:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                sent = 0
                while sent < reply.oversize:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(filler), filler))
                    sent += len(filler)
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(reply.oversize))
                self.end_headers()
                sent = 0
                while sent < reply.oversize:
                    chunk = filler[: reply.oversize - sent]
                    self.wfile.write(chunk)
                    sent += len(chunk)
            return
        payload = reply.body
        if not isinstance(payload, (bytes, str)):
            payload = json.dumps(payload, ensure_ascii=False)
            if not any(k.lower() == "content-type" for k in reply.headers):
                self.send_header("Content-Type", "application/json; charset=utf-8")
        data = payload.encode() if isinstance(payload, str) else payload
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = _handle
    do_POST = _handle


class WebEmulator:
    """The server plus its script and records; use :func:`serve`."""

    def __init__(self, default: Reply | None = None, tls: tuple[str, str] | None = None) -> None:
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.script: deque[Reply] = deque()
        self.default = default or Reply(200, {})
        self.requests: list[Recorded] = []
        self.connections = 0
        self._server = _Server(self)
        host, port = self._server.server_address[:2]
        scheme = "http"
        if tls is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*tls)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://{host!s}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def received(self, count: int, within: float = 30.0) -> int:
        """How many requests arrived, once ``count`` have (or ``within`` seconds passed).

        A client that timed out may have sent its request before this server's thread read
        it; on a loaded machine the record follows a little later.
        """
        deadline = time.monotonic() + within
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(self.requests)

    def enqueue(self, *replies: Reply) -> None:
        with self.lock:
            self.script.extend(replies)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


@contextmanager
def serve(
    default: Reply | None = None, tls: tuple[str, str] | None = None
) -> Iterator[WebEmulator]:
    """Run an emulator for the duration of a ``with`` block (HTTPS with ``tls=(cert, key)``)."""
    emulator = WebEmulator(default, tls)
    emulator.start()
    try:
        yield emulator
    finally:
        emulator.stop()


def call(connector: Any, mode: str, method: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``method`` (mode "async") or ``method_sync`` (any other mode), then close."""
    if mode != "async":
        try:
            return getattr(connector, method + "_sync")(*args, **kwargs)
        finally:
            connector.close()

    async def go() -> Any:
        try:
            return await getattr(connector, method)(*args, **kwargs)
        finally:
            await connector.aclose()

    return asyncio.run(go())


# -- a server that drips its answer ----------------------------------------------------------


class DripServer:
    """Answers every request one byte at a time, ``interval`` seconds apart.

    ``where="headers"`` drips the status line and headers themselves (a client's read
    timeout restarts with each byte, so only a total deadline ends the wait);
    ``where="body"`` sends the headers at once and drips a long body. Records when each
    connection was accepted and when the client went away. A connection is cut after
    ``limit`` seconds, so a client without a deadline fails (not with a timeout) instead of
    hanging the test run for the hours the drip would last.
    """

    def __init__(self, where: str = "headers", interval: float = 0.2, limit: float = 60.0) -> None:
        self.where = where
        self.interval = interval
        self.limit = limit
        self.stopping = threading.Event()
        self.accepted: list[float] = []
        self.gone: list[float] = []
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._threads: list[threading.Thread] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.append(time.monotonic())
            worker = threading.Thread(target=self._drip, args=(conn,), daemon=True)
            self._threads.append(worker)
            worker.start()

    def _drip(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if self.where == "headers":
            payload = head + b"X-Padding: " + b"a" * 100_000 + b"\r\n\r\n{}"
        else:
            payload = head + b"Content-Length: 100000\r\n\r\n" + b" " * 100_000
        try:
            conn.settimeout(1.0)
            conn.recv(65536)  # the request
            if self.where == "body":
                cut = payload.index(b"\r\n\r\n") + 4
                conn.sendall(payload[:cut])
                payload = payload[cut:]
            ends = time.monotonic() + self.limit
            for i in range(len(payload)):
                if self.stopping.wait(self.interval) or time.monotonic() > ends:
                    break
                conn.sendall(payload[i : i + 1])
        except OSError:
            pass
        finally:
            self.gone.append(time.monotonic())
            conn.close()

    def __enter__(self) -> DripServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._thread.join(5)
        for worker in self._threads:
            worker.join(5)
        self._sock.close()


def make_certificate(folder: Path) -> tuple[str, str]:
    """A throwaway self-signed certificate for 127.0.0.1 and localhost: (certfile, keyfile)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certfile, keyfile = folder / "cert.pem", folder / "key.pem"
    keyfile.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return str(certfile), str(keyfile)
