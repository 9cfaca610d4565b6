"""MCP over Streamable HTTP: a real server (``textsearch mcp --http``) on 127.0.0.1, reached
with the official client's Streamable HTTP transport; tokens, Origin, size and shutdown."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("mcp")
httpx2 = pytest.importorskip("httpx2")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from tests.plugins._support import REPO_ROOT  # noqa: E402
from textsearch.errors import ConfigurationError  # noqa: E402
from textsearch.plugins import create_search_plugin  # noqa: E402
from textsearch.plugins._mcp_http import build_app, is_loopback, parse_address  # noqa: E402

TOKEN = "s3cret-token-for-tests"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Served:
    def __init__(self, process: subprocess.Popen[bytes], url: str, stderr: Path) -> None:
        self.process = process
        self.url = url
        self.stderr = stderr


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "guide.md").write_text(
        "# Guide\n\nOpening words.\n\n## Retries\n\nRetry with exponential backoff.\n"
    )
    port = _free_port()
    stderr = tmp_path / "stderr.txt"
    env = {
        "PYTHONPATH": str(REPO_ROOT),
        "PATH": os.environ.get("PATH", ""),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "TEXTSEARCH_MCP_TOKEN": TOKEN,
    }
    with open(stderr, "wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "textsearch", "mcp", "--path", str(kb),
             "--http", f"127.0.0.1:{port}", "--index-wait", "10"],
            env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(stderr.read_text()) from None
                time.sleep(0.2)
        yield Served(process, url, stderr)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def _post(url: str, headers: dict[str, str], body: object = INIT) -> httpx.Response:
    return httpx.post(url, json=body, headers={**HEADERS, **headers}, timeout=30)


@pytest.mark.anyio
async def test_the_official_client_searches_and_reads_over_http(served: Served) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(headers=auth, timeout=60) as http, Client(
        streamable_http_client(served.url, http_client=http), cache=None
    ) as client:
        assert client.server_capabilities.resources is not None
        result = await client.call_tool("search", {"query": "exponential backoff"})
        assert "exponential backoff" in result.content[0].text
        links = [c.uri for c in result.content if c.type == "resource_link"]
        section = (await client.read_resource(links[0])).contents[0].text
        assert section == "Retry with exponential backoff."
        assert (await client.list_resources()).resources


def test_a_missing_or_wrong_token_is_401_and_never_logged(served: Served) -> None:
    wrong = ["Bearer wrong", TOKEN, f"Bearer {TOKEN}x", f"bearer {TOKEN[:-1]}", "Basic x"]
    for headers in [{}] + [{"Authorization": value} for value in wrong]:
        response = _post(served.url, headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert TOKEN not in response.text
    good = _post(served.url, {"Authorization": f"Bearer {TOKEN}"})
    assert good.status_code == 200 and good.json()["result"]["serverInfo"]
    served.process.send_signal(signal.SIGTERM)
    # graceful: uvicorn finishes what is in flight, then exits by the signal it got
    assert served.process.wait(30) in (0, -signal.SIGTERM)
    assert "Traceback" not in served.stderr.read_text()
    assert TOKEN not in served.stderr.read_text()


def test_origin_size_and_path_are_checked(served: Served) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert _post(served.url, {**auth, "Origin": "https://evil.example"}).status_code == 403
    assert _post(served.url, {**auth, "Origin": "http://localhost.evil.example"}).status_code == 403
    assert _post(served.url, {**auth, "Origin": "http://localhost:3000"}).status_code == 200
    big = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "x" * 2_000_000}}
    assert _post(served.url, auth, big).status_code == 413
    other = served.url.replace("/mcp", "/other")
    assert _post(other, auth).status_code == 404


def test_a_server_beyond_loopback_needs_a_token() -> None:
    from textsearch import LocalTextSearch

    plugin = create_search_plugin(LocalTextSearch())
    with pytest.raises(ConfigurationError, match="bearer token"):
        build_app(plugin, "0.0.0.0")
    build_app(plugin, "0.0.0.0", token="t")  # with one it builds
    build_app(plugin, "127.0.0.1")  # loopback: a token is optional
    assert is_loopback("::1") and is_loopback("localhost") and not is_loopback("10.0.0.1")
    assert parse_address("[::1]:8000") == ("::1", 8000)
    with pytest.raises(ConfigurationError, match="HOST:PORT"):
        parse_address("localhost")
