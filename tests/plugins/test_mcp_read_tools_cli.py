"""``textsearch mcp --read-tools`` and ``textsearch tools --read-tools``: the read tool from
the command line, for MCP clients that call tools but cannot read resources."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.plugins._support import REPO_ROOT
from textsearch.cli import main

BODY = "Exponential backoff doubles the wait.\n\n" + "\n\n".join(
    f"Paragraph {i} about jitter and retries." for i in range(40)
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "retry.md").write_text(f"# Retry\n\n{BODY}\n\n## Limits\n\nAt most five tries.\n")
    (kb / "other.md").write_text("# Other\n\nNothing about waiting.\n")
    return kb


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as stream:
        yield stream


@pytest.mark.anyio
async def test_mcp_read_tools_flag_reads_the_document_behind_a_result(
    folder: Path, tmp_path: Path, errlog: TextIO
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "textsearch", "mcp", "--path", str(folder), "--read-tools"],
        env={"PYTHONPATH": str(REPO_ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")},
        cwd=str(tmp_path),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = sorted(t.name for t in (await session.list_tools()).tools)
            found = await session.call_tool("search", {"query": "five tries"})
            link = found.structured_content["results"][0]["link"]
            whole = await session.call_tool("read_document", {"link": link.split("#")[0]})
            outside = await session.call_tool("read_document", {"link": "/etc/passwd"})
    assert names == ["read_document", "search"]
    assert link.endswith("retry.md#limits")
    text = json.loads(whole.content[0].text)["text"]
    # the whole document, in order: the first section's text, then the second's
    assert text.index("Exponential backoff") < text.index("Paragraph 39") < text.index("five")
    assert "root:" not in outside.content[0].text


def test_tools_without_the_flag_has_the_search_tool_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = io.StringIO()
    code = main(["tools", "--format", "mcp"], out=out)
    assert code == 0
    assert [t["name"] for t in json.loads(out.getvalue())] == ["search"]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_tools_command_lists_the_read_and_fetch_tools(
    tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = io.StringIO()
    argv = ["tools", "--format", fmt, "--read-tools", "--fetch"]
    assert main(argv, out=out) == 0
    tools = json.loads(out.getvalue())
    names = [t.get("name") or t["function"]["name"] for t in tools]
    assert names == ["search", "read_document", "fetch_page"]
