"""``textsearch mcp --http``: Streamable HTTP with the official client, and its guard.

The server runs as a real process on 127.0.0.1, stopped by its own pid.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.plugins._support import REPO_ROOT
from textsearch.plugins._mcp_http import is_loopback

TOKEN = "t0ken-for-tests-only"
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
}
LIST_TOOLS = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TEXTSEARCH_MCP_TOKEN"}
    env.update(
        PYTHONPATH=str(REPO_ROOT), XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONUNBUFFERED="1"
    )
    env.update(extra)
    return env


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "guide.md").write_text(
        "# Guide\n\nIntro and owners.\n\n## Retry\n\nRetry with exponential backoff.\n",
        encoding="utf-8",
    )
    return kb


@pytest.fixture
def server(folder: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    port = _free_port()
    errors = tmp_path / "server.err"
    with open(errors, "w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "textsearch",
                "mcp",
                "--path",
                str(folder),
                "--http",
                f"127.0.0.1:{port}",
                "--token",
                TOKEN,
            ],
            env=_env(tmp_path),
            cwd=str(tmp_path),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.post(url, content=LIST_TOOLS, headers=HEADERS, timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise AssertionError(errors.read_text(encoding="utf-8")) from None
                time.sleep(0.2)
        yield url, errors
    finally:
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(timeout=20) == 0  # a graceful stop
    assert TOKEN not in errors.read_text(encoding="utf-8")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_official_client_over_streamable_http(server: tuple[str, Path], mode: str) -> None:
    import httpx2

    url, _ = server
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        async with Client(
            streamable_http_client(url, http_client=http), mode=mode, cache=None
        ) as client:
            (tool,) = (await client.list_tools()).tools
            assert tool.name == "search"
            result = await client.call_tool("search", {"query": "exponential backoff"})
            assert result.is_error is False
            assert "exponential backoff" in str(result.content[0].text)
            (link,) = [b for b in result.content if b.type == "resource_link"]
            section = (await client.read_resource(str(link.uri))).contents[0].text
            assert "exponential backoff" in section and "owners" not in section
            listed = await client.list_resources()
            assert [r.name for r in listed.resources] == ["Guide"]


def test_token_origin_and_size_are_checked(server: tuple[str, Path]) -> None:
    url, _ = server
    auth = {"authorization": f"Bearer {TOKEN}"}
    ok = httpx.post(url, content=LIST_TOOLS, headers={**HEADERS, **auth}, timeout=10)
    assert ok.status_code == 200 and "search" in ok.text
    for bad in (
        {},
        {"authorization": "Bearer wrong"},
        {"authorization": TOKEN},
        {"authorization": f"Basic {TOKEN}"},
        {"authorization": f"Bearer {TOKEN}x"},
    ):
        refused = httpx.post(url, content=LIST_TOOLS, headers={**HEADERS, **bad}, timeout=10)
        assert refused.status_code == 401, bad
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert TOKEN not in refused.text
    for origin in ("https://evil.example", "null", "http://127.0.0.1.evil.example"):
        refused = httpx.post(
            url, content=LIST_TOOLS, headers={**HEADERS, **auth, "origin": origin}, timeout=10
        )
        assert refused.status_code in (400, 403), origin
    # a page served from loopback (a local inspector) may call a loopback server
    local = httpx.post(
        url,
        content=LIST_TOOLS,
        headers={**HEADERS, **auth, "origin": "http://localhost:6274"},
        timeout=10,
    )
    assert local.status_code == 200
    # DNS rebinding: a page of evil.example resolved to 127.0.0.1 is same-origin for the
    # browser, but the Host is not loopback
    rebound = httpx.post(
        url,
        content=LIST_TOOLS,
        headers={
            **HEADERS,
            **auth,
            "host": f"evil.example:{url.split(':')[2].split('/')[0]}",
            "origin": f"http://evil.example:{url.split(':')[2].split('/')[0]}",
        },
        timeout=10,
    )
    assert rebound.status_code in (403, 421)
    big = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"' + b"a" * 2_000_000
    too_big = httpx.post(url, content=big + b'"}}', headers={**HEADERS, **auth}, timeout=10)
    assert too_big.status_code == 413
    assert httpx.get(url.replace("/mcp", "/other"), headers=auth, timeout=10).status_code == 404


def test_a_non_loopback_bind_without_a_token_refuses_to_start(folder: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "textsearch",
            "mcp",
            "--path",
            str(folder),
            "--http",
            "0.0.0.0:8765",
        ],
        env=_env(tmp_path),
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "token is required" in done.stderr and "TEXTSEARCH_MCP_TOKEN" in done.stderr
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.db"))
    bad = subprocess.run(
        [sys.executable, "-m", "textsearch", "mcp", "--path", str(folder), "--http", "nope"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "HOST:PORT" in bad.stderr


def test_loopback_detection() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "::1", "[::1]", "localhost", "127.8.0.1"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "10.0.0.1", "example.com", ""]))


@pytest.mark.anyio
async def test_requests_beyond_the_concurrency_bound_get_503() -> None:
    import anyio

    from textsearch.plugins._mcp_http import HttpGuardSettings, _Guard

    release = anyio.Event()
    entered = anyio.Event()

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        entered.set()
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    guard = _Guard(slow, token="x", loopback=True, settings=HttpGuardSettings(max_concurrency=1))
    transport = httpx.ASGITransport(app=guard)
    headers = {"authorization": "Bearer x"}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        statuses: list[int] = []

        async def first() -> None:
            statuses.append((await http.post("/mcp", headers=headers)).status_code)

        async with anyio.create_task_group() as group:
            group.start_soon(first)
            await entered.wait()
            busy = await http.post("/mcp", headers=headers)
            assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
            release.set()
        assert statuses == [200]
        # the slot is free again
        release = anyio.Event()
        release.set()
        assert (await http.post("/mcp", headers=headers)).status_code == 200


def test_guard_settings_are_checked_once_and_never_show_the_token() -> None:
    from textsearch.errors import ConfigurationError
    from textsearch.plugins import create_search_plugin
    from textsearch.plugins._mcp_http import HttpGuardSettings, build_http_app
    from textsearch.testing import StaticTextSearch

    plugin = create_search_plugin(StaticTextSearch(["retry with backoff"]))
    settings = HttpGuardSettings(token="s3cret-token", max_concurrency=2)
    assert "s3cret-token" not in repr(settings)
    with pytest.raises(ConfigurationError, match="bearer token"):
        build_http_app(plugin, host="0.0.0.0")
    with pytest.raises(ConfigurationError, match="at least 1"):
        build_http_app(plugin, host="127.0.0.1", settings=HttpGuardSettings(max_body_bytes=0))
    assert callable(build_http_app(plugin, host="0.0.0.0", settings=settings))
