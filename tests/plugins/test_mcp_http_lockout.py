"""Issue #33 item 4 (and item 1 over HTTP): the MCP HTTP server cannot be locked out.

Real sockets to a server process on 127.0.0.1, stopped by its own pid. The attacker's
connections come from 127.0.0.2 (any 127/8 address is loopback on Linux), the real client's
from 127.0.0.1, so the per-address cap is exercised as it is across a network.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.plugins._support import REPO_ROOT

TOKEN = "t0ken-for-lockout-tests"
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
    "authorization": f"Bearer {TOKEN}",
}
LIST_TOOLS = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
HEADER_TIMEOUT = 0.5  # the server's; every wait below allows 20x that or more
ATTACKER = "127.0.0.2"

_SERVER = textwrap.dedent(
    """
    import inspect
    import sys
    from textsearch.connectors.local import LocalTextSearch
    from textsearch.plugins import create_search_plugin

    search = LocalTextSearch(sys.argv[2])
    search.add_documents(
        [{"id": f"d{i}", "title": f"Retry {i}", "text": f"retry with backoff {i}"}
         for i in range(40)]
    )
    plugin = create_search_plugin(search, max_repeats=None)
    limits = dict(
        header_timeout=float(sys.argv[4]), body_timeout=float(sys.argv[4]),
        max_connections_per_client=6,
    )
    # (a release without these limits runs with its defaults: the tests then show why)
    known = inspect.signature(plugin.serve_mcp_http).parameters
    limits = {k: v for k, v in limits.items() if k in known}
    plugin.serve_mcp_http(
        "127.0.0.1", int(sys.argv[1]), token=sys.argv[3], max_concurrency=4, **limits
    )
    """
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _can_bind_attacker() -> bool:
    try:
        with socket.socket() as probe:
            probe.bind((ATTACKER, 0))
        return True
    except OSError:
        return False


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    port = _free_port()
    errors = tmp_path / "server.err"
    env = {"PYTHONPATH": str(REPO_ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    with open(errors, "w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(port), str(tmp_path / "kb.sqlite3"), TOKEN,
             str(HEADER_TIMEOUT)],
            env=env, cwd=str(tmp_path), stdout=subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.post(url, content=LIST_TOOLS, headers=HEADERS, timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise AssertionError(errors.read_text(encoding="utf-8")) from None
                time.sleep(0.2)
        yield url, port
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    assert "Traceback" not in errors.read_text(encoding="utf-8")


def _connect(port: int, source: str = ATTACKER) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    return sock


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def _served(url: str) -> int:
    return httpx.post(url, content=LIST_TOOLS, headers=HEADERS, timeout=30).status_code


def test_idle_and_half_sent_connections_never_lock_clients_out(
    server: tuple[str, int],
) -> None:
    if not _can_bind_attacker():
        pytest.skip("127.0.0.2 is not usable here")
    url, port = server
    held: list[socket.socket] = []
    try:
        # Far more than uvicorn's connection limit (4 * 2 + 8): idle ones and half-sent ones.
        for i in range(80):
            sock = _connect(port)
            if i % 2:
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")
            held.append(sock)
        assert _served(url) == 200  # a real client from another address is served at once
        # Every attacker connection is closed: over the per-address cap at once, the rest
        # when their headers are late.
        for sock in held:
            assert _closed_by_server(sock, within=20 * HEADER_TIMEOUT + 10)
        # ... and the attacker's own address is served again afterwards.
        with httpx.Client(transport=httpx.HTTPTransport(local_address=ATTACKER)) as client:
            assert (
                client.post(url, content=LIST_TOOLS, headers=HEADERS, timeout=30).status_code == 200
            )
    finally:
        for sock in held:
            sock.close()


def test_a_body_that_never_comes_is_refused_and_frees_its_slot(
    server: tuple[str, int],
) -> None:
    url, port = server
    # max_concurrency=4: one address may have 2 requests in flight
    slow = [_connect(port, "127.0.0.1") for _ in range(2)]
    try:
        head = (
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {TOKEN}\r\nContent-Length: 1000\r\n\r\n"
        ).encode()
        for sock in slow:
            sock.sendall(head + b'{"jsonrpc":')
        for sock in slow:
            sock.settimeout(20 * HEADER_TIMEOUT + 10)
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert _served(url) == 200  # the slots are free again
    finally:
        for sock in slow:
            sock.close()


def test_get_streams_are_refused_so_they_hold_no_slot(server: tuple[str, int]) -> None:
    url, _ = server
    with httpx.Client(timeout=30) as client:
        for _ in range(40):
            answer = client.get(url, headers={**HEADERS, "accept": "text/event-stream"})
            assert answer.status_code == 405
        assert client.post(url, content=LIST_TOOLS, headers=HEADERS).status_code == 200


def _call(url: str, arguments: dict[str, object]) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search", "arguments": arguments},
    }
    return httpx.post(url, content=json.dumps(body), headers=HEADERS, timeout=60)


def test_a_huge_skip_leaves_the_server_answering(server: tuple[str, int]) -> None:
    url, _ = server
    for skip in (10**9, 2**63 - 10, 2**64):
        answer = _call(url, {"query": "retry backoff", "skip": skip})
        assert answer.status_code == 200, answer.text[:300]
        assert "used skip=10000" in answer.text
    after = _call(url, {"query": "retry backoff"})
    assert after.status_code == 200
    assert after.json()["result"]["structuredContent"]["results"]
