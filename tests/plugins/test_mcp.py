"""The MCP server, driven by the official ``mcp`` client: in-process and over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from tests.plugins._support import ARTICLES, DOCS, REPO_ROOT, ThirdPartySearch
from textsearch import RateLimitError, TextSearchFilter
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch


def _text(result: Any) -> str:
    # The text block comes first; resource links to documents may follow it.
    block = result.content[0]
    assert block.type == "text"
    assert all(b.type == "resource_link" for b in result.content[1:])
    return str(block.text)


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": str(REPO_ROOT),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "retry.md").write_text(
        "# Retry policy\n\nRetry failed calls with exponential backoff.\n", encoding="utf-8"
    )
    (kb / "cache.md").write_text("# Caching\n\nCache for five minutes.\n", encoding="utf-8")
    return kb


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    """The server's stderr, kept in a file the test reads afterwards."""
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as stream:
        yield stream


# -- in-process (the server object, for embedding and tests) --------------------------------


@pytest.mark.anyio
async def test_in_process_server_lists_and_calls_tools() -> None:
    docs = StaticTextSearch(DOCS, match="any")
    plugin = create_search_plugin(
        docs,
        name="kb",
        functions=[
            create_search_function(
                docs, name="docs", filter=TextSearchFilter().equal_to("site", "kb.example")
            ),
            create_search_function(
                ThirdPartySearch(ARTICLES), kind="text_search_results", name="web"
            ),
        ],
    )
    async with Client(plugin.create_mcp_server()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert list(tools) == ["docs", "web"]
        assert tools["docs"].input_schema == plugin["docs"].parameters_json_schema
        assert tools["docs"].annotations is not None
        assert tools["docs"].annotations.read_only_hint is True
        assert tools["docs"].annotations.open_world_hint is False
        assert tools["web"].annotations is not None
        assert tools["web"].annotations.open_world_hint is True
        result = await client.call_tool("docs", {"query": "backoff"})
        assert result.is_error is False
        assert _text(result).startswith('Found 2 results for "backoff"')
        assert docs.calls[-1].options.filter == TextSearchFilter().equal_to("site", "kb.example")
        bad = await client.call_tool("docs", {"query": "backoff", "top": "lots"})
        assert bad.is_error is True and _text(bad).startswith("Invalid arguments for docs")
        unknown = await client.call_tool("nope", {"query": "x"})
        assert unknown.is_error is True and "available tools are: docs, web" in _text(unknown)


@pytest.mark.anyio
async def test_in_process_search_failure_is_a_tool_error() -> None:
    failing = StaticTextSearch(DOCS, error=RateLimitError("429 raw body key=abc", retry_after=30))
    async with Client(create_search_plugin(failing).create_mcp_server()) as client:
        result = await client.call_tool("search", {"query": "backoff"})
    assert result.is_error is True
    assert _text(result) == "The search service is rate limited; retry in about 30 seconds."


# -- over stdio, in a subprocess --------------------------------------------------------------


@pytest.mark.anyio
async def test_textsearch_mcp_over_stdio(folder: Path, tmp_path: Path, errlog: TextIO) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "textsearch", "mcp", "--provider", "local", "--path", str(folder)],
        env=_env(tmp_path),
        cwd=str(tmp_path),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "search"
            listed = (await session.list_tools()).tools
            assert [t.name for t in listed] == ["search"]
            tool = listed[0]
            assert tool.input_schema["required"] == ["query"]
            assert tool.input_schema["additionalProperties"] is False
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            assert tool.annotations.open_world_hint is False
            result = await session.call_tool("search", {"query": "exponential backoff"})
            assert result.is_error is False
            payload = json.loads(_text(result))
            assert payload["results"][0]["citation"] == 1
            assert payload["results"][0]["name"] == "Retry policy"
            assert payload["results"][0]["link"].endswith("retry.md")
            bad = await session.call_tool("search", {"query": "  "})
            assert bad.is_error is True
            assert _text(bad).startswith("Invalid arguments for search: query")
    errlog.flush()
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text(encoding="utf-8")


FAILING_SERVER = """
from textsearch import SearchTimeoutError
from textsearch.plugins import create_search_plugin
from textsearch.testing import StaticTextSearch

search = StaticTextSearch(["x"], error=SearchTimeoutError("timed out after 10 s; key=abc"))
create_search_plugin(search, name="failing").serve_mcp()
"""


@pytest.mark.anyio
async def test_serve_mcp_reports_a_failing_search_as_a_tool_error(
    tmp_path: Path, errlog: TextIO
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-c", FAILING_SERVER], env=_env(tmp_path), cwd=str(tmp_path)
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "failing"
            result = await session.call_tool("search", {"query": "anything"})
    assert result.is_error is True
    assert _text(result) == (
        "The search service did not answer in time; retry later or with a simpler query."
    )


def test_stdout_carries_only_the_protocol(folder: Path, tmp_path: Path) -> None:
    env = {**os.environ, **_env(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "textsearch", "mcp", "--path", str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "cache"}},
        },
    ]
    payload = "".join(json.dumps(r) + "\n" for r in requests).encode()
    assert process.stdin is not None and process.stdout is not None
    received: list[bytes] = []

    def read_until_the_call_is_answered() -> None:
        # stdin stays open until the tool call is answered: closing it at once (as
        # communicate() does) lets the server stop before it answers, a race.
        assert process.stdout is not None
        for raw in process.stdout:
            received.append(raw)
            if raw.strip() and json.loads(raw).get("id") == 2:
                return

    reader = threading.Thread(target=read_until_the_call_is_answered, daemon=True)
    try:
        process.stdin.write(payload)
        process.stdin.flush()
        reader.start()
        reader.join(60)
        rest, stderr = process.communicate(timeout=60)  # closes stdin: the server exits
        received.append(rest)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stdout = b"".join(received)
    lines = [line for line in stdout.decode().splitlines() if line.strip()]
    messages = [json.loads(line) for line in lines]  # every stdout line is JSON-RPC
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert by_id[1]["result"]["serverInfo"]["name"] == "search"
    call = by_id[2]["result"]
    assert call["isError"] is False
    assert "cache.md" in call["content"][0]["text"]
    assert b"Traceback" not in stderr  # the indexing note is for terminals only


def test_mcp_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from textsearch.plugins import _mcp

    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp -> ImportError
    plugin = create_search_plugin(StaticTextSearch(DOCS))
    with pytest.raises(ImportError, match=r'pip install "textsearch-sdk\[mcp\]"'):
        plugin.create_mcp_server()
    with pytest.raises(ImportError, match=r'pip install "textsearch-sdk\[mcp\]"'):
        plugin.serve_mcp()
    with pytest.raises(ImportError, match=r'pip install "textsearch-sdk\[mcp\]"'):
        _mcp.require_mcp()


def test_mcp_1x_is_refused_with_an_upgrade_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from textsearch.plugins import _mcp

    real_version = importlib.metadata.version

    def fake_version(name: str) -> str:
        return "1.26.0" if name == "mcp" else real_version(name)

    monkeypatch.setattr(importlib.metadata, "version", fake_version)
    with pytest.raises(ImportError, match=r"needs mcp >= 2.0, found 1.26.0"):
        _mcp.require_mcp()
