"""MCP features of the current spec, checked with the official client in both protocol eras.

``legacy`` is the initialize handshake (2025-11-25 and before), ``2026-07-28`` the stateless
per-request envelope; ``textsearch mcp`` must serve both the same way.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import jsonschema
import pytest
from mcp import Client, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests.plugins._support import ARTICLES, REPO_ROOT, ThirdPartySearch
from textsearch import LocalTextSearch
from textsearch.plugins import create_search_function, create_search_plugin

MODES = ["legacy", "2026-07-28"]


def _text(result: Any) -> str:
    block = result.content[0]
    assert block.type == "text"
    return str(block.text)


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": str(REPO_ROOT),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as stream:
        yield stream


def _local() -> LocalTextSearch:
    local = LocalTextSearch()
    local.add_documents(
        [
            {
                "id": "retry",
                "title": "Retry policy",
                "text": "Retry failed calls with exponential backoff. " + "Details. " * 20,
                "link": "https://kb.example/retry",
            },
            {
                "id": "cache",
                "title": "Caching",
                "text": "Cache responses for five minutes.",
                "link": "https://kb.example/cache",
            },
        ]
    )
    return local


def _check_structured(tool: Any, result: Any) -> dict[str, Any]:
    assert result.is_error is False
    structured: dict[str, Any] = result.structured_content
    jsonschema.validate(structured, tool.output_schema)
    return structured


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_structured_content_matches_schema_and_text(mode: str) -> None:
    local = _local()
    plugin = create_search_plugin(
        local,
        name="kb",
        functions=[
            create_search_function(local, kind="text_search_results", name="docs"),
            create_search_function(local, name="docs_text"),
            create_search_function(ThirdPartySearch(ARTICLES), kind="search_results", name="web"),
        ],
    )
    async with Client(plugin.create_mcp_server(), mode=mode, cache=None) as client:
        first = (await client.list_tools()).tools
        second = (await client.list_tools()).tools
        # deterministic: the same list, in the plugin's order, every time
        assert [t.model_dump() for t in first] == [t.model_dump() for t in second]
        assert [t.name for t in first] == ["docs", "docs_text", "web"]
        tools = {t.name: t for t in first}
        assert tools["docs"].annotations is not None
        assert tools["docs"].annotations.idempotent_hint is True
        assert tools["docs"].annotations.open_world_hint is False
        assert tools["web"].annotations is not None
        assert tools["web"].annotations.open_world_hint is True
        assert tools["web"].annotations.idempotent_hint is None

        docs = await client.call_tool("docs", {"query": "backoff"})
        structured = _check_structured(tools["docs"], docs)
        assert json.loads(_text(docs)) == structured  # text kept for older clients
        assert structured["results"][0]["citation"] == 1
        assert structured["results"][0]["link"] == "https://kb.example/retry"

        text = await client.call_tool("docs_text", {"query": "backoff"})
        structured = _check_structured(tools["docs_text"], text)
        assert _text(text).startswith('Found 1 result for "backoff"')
        assert structured["results"][0]["citation"] == 1
        assert "exponential" in structured["results"][0]["text"]

        web = await client.call_tool("web", {"query": "backoff"})
        structured = _check_structured(tools["web"], web)
        assert [r["link"] for r in structured["results"]] == [
            r["link"] for r in json.loads(_text(web))["results"]
        ]
    local.close()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_bounds_and_unknown_arguments_follow_the_declared_policy(mode: str) -> None:
    local = _local()
    plugin = create_search_plugin(
        local,
        functions=[
            create_search_function(
                local, kind="text_search_results", name="clamped", top=2, max_top=3
            ),
            create_search_function(
                local,
                kind="text_search_results",
                name="strict",
                top=2,
                max_top=3,
                out_of_bounds="reject",
            ),
        ],
    )
    async with Client(plugin.create_mcp_server(), mode=mode, cache=None) as client:
        clamped = await client.call_tool("clamped", {"query": "backoff", "top": 500})
        assert clamped.is_error is False
        note = "top=500 is outside the maximum of 3; used top=3."
        assert clamped.structured_content["notes"] == [note]
        assert json.loads(_text(clamped))["notes"] == [note]

        rejected = await client.call_tool("strict", {"query": "backoff", "top": 500})
        assert rejected.is_error is True
        assert rejected.structured_content is None
        assert _text(rejected).startswith("Invalid arguments for strict: top:")
        assert "less than or equal to 3" in _text(rejected)

        unknown = await client.call_tool(
            "clamped", {"query": "backoff", "site": "evil.example", "k": 1}
        )
        assert unknown.is_error is True
        assert "unknown arguments 'site', 'k'" in _text(unknown)
        assert "the parameters are query, top, skip" in _text(unknown)
    local.close()


# -- textsearch mcp over stdio, both eras --------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "retry.md").write_text(
        "# Retry policy\n\nRetry failed calls with exponential backoff.\n", encoding="utf-8"
    )
    (kb / "cache.md").write_text("# Caching\n\nCache for five minutes.\n", encoding="utf-8")
    return kb


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_textsearch_mcp_tools_and_documents(
    mode: str, folder: Path, tmp_path: Path, errlog: TextIO
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "textsearch", "mcp", "--path", str(folder)],
        env=_env(tmp_path),
        cwd=str(tmp_path),
    )
    async with Client(stdio_client(params, errlog=errlog), mode=mode, cache=None) as client:
        (tool,) = (await client.list_tools()).tools
        assert tool.input_schema["additionalProperties"] is False
        assert tool.output_schema is not None
        assert tool.annotations is not None
        assert (tool.annotations.read_only_hint, tool.annotations.open_world_hint) == (True, False)

        result = await client.call_tool("search", {"query": "exponential backoff"})
        structured = _check_structured(tool, result)
        assert json.loads(_text(result)) == structured
        (hit,) = structured["results"]
        assert hit["link"].endswith("retry.md")
        links = [b for b in result.content[1:] if b.type == "resource_link"]
        assert [link.name for link in links] == ["Retry policy"]

        # the whole document, by the result's resource link
        whole = (await client.read_resource(links[0].uri)).contents[0]
        assert "Retry failed calls with exponential backoff." in whole.text
        # a passage of it
        part = (await client.read_resource(f"{links[0].uri}?start=6&end=12")).contents[0]
        assert part.text == whole.text[6:12]
        # by the link the model saw, as a file URI
        by_file = (await client.read_resource(Path(hit["link"]).as_uri())).contents[0]
        assert by_file.text == whole.text
        with pytest.raises(MCPError, match="No document"):
            await client.read_resource("textsearch://documents/nothing-here")
        (template,) = (await client.list_resource_templates()).resource_templates
        assert template.uri_template.startswith("textsearch://documents/{id}")

        unknown = await client.call_tool("search", {"query": "x", "filter": None})
        assert unknown.is_error is True and "unknown argument 'filter'" in _text(unknown)
    errlog.flush()
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text(encoding="utf-8")


# The CLI with index_path's file reading held at "m-slow.md" until the gate file exists.
_GATED_SERVER = """
import pathlib, runpy, sys, time
import textsearch.connectors.local._writing as writing
gate = pathlib.Path(sys.argv.pop(1))
real = writing.read_file
def read_file(file, *args, **kwargs):
    if file.name == "m-slow.md":
        while not gate.exists():
            time.sleep(0.05)
    return real(file, *args, **kwargs)
writing.read_file = read_file
sys.argv[0] = "textsearch"
runpy.run_module("textsearch", run_name="__main__")
"""


@pytest.mark.anyio
async def test_mcp_on_a_big_folder_answers_at_once_and_reports_progress(
    tmp_path: Path, errlog: TextIO
) -> None:
    kb = tmp_path / "big"
    kb.mkdir()
    for i in range(12):
        (kb / f"a{i:02}.md").write_text(f"# Note {i}\n\nOrdinary text {i}.\n", encoding="utf-8")
    # Indexing waits at this file until the test opens a gate (a file it creates), so the
    # server is provably still indexing while it answers (no timing guess). FIFOs are never
    # opened by the reader, so the server runs with its file reading wrapped instead.
    slow = kb / "m-slow.md"
    slow.write_text("# Slow\n\nA zebra crossed.\n", encoding="utf-8")
    gate = tmp_path / "gate"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", _GATED_SERVER, str(gate), "mcp", "--path", str(kb), "--index-wait", "0.3"],
        env=_env(tmp_path),
        cwd=str(tmp_path),
    )
    writer: threading.Thread | None = None
    try:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            assert client.server_info is not None and client.server_info.name == "search"
            busy = await client.call_tool("search", {"query": "zebra"})
            assert busy.is_error is True
            assert "still being built (12 of 13 files indexed so far)" in _text(busy)

            def finish() -> None:
                gate.write_text("open", encoding="utf-8")

            writer = threading.Thread(target=finish, daemon=True)
            writer.start()
            deadline = time.monotonic() + 30
            while True:
                done = await client.call_tool("search", {"query": "zebra"})
                if not done.is_error or time.monotonic() > deadline:
                    break
            assert done.is_error is False, _text(done)
            assert done.structured_content["results"][0]["name"] == "Slow"
    finally:
        if writer is None:  # unblock the server's reader (if any) so it can exit
            gate.write_text("open", encoding="utf-8")
    errlog.flush()
    stderr = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    # progress lines although stderr is a file, not a terminal
    assert f"textsearch: indexing {kb}: 1/13 files" in stderr
    assert "textsearch: indexed 13 file(s)" in stderr
