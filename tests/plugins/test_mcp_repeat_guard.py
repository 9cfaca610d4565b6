"""Issue #33 item 14: the loop guard works with the official ``mcp`` client.

The third identical call once came back without ``structuredContent`` (the client then
raises), HTTP clients shared one counter, an "index still being built, retry" answer
counted as a repeat, and ``textsearch mcp`` could not turn the guard off.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import jsonschema
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from tests.plugins._support import DOCS, REPO_ROOT
from textsearch.errors import ServiceUnavailableError
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch

CALL = {"query": "backoff"}


def _check_against_schema(tool: Any, result: Any) -> None:
    assert result.structured_content is not None
    jsonschema.validate(result.structured_content, tool.output_schema)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_every_answer_of_a_repeated_call_matches_the_output_schema(mode: str) -> None:
    plugin = create_search_plugin(StaticTextSearch(DOCS, match="any"))
    async with Client(plugin.create_mcp_server(), mode=mode) as client:
        (tool,) = (await client.list_tools()).tools
        results = [await client.call_tool("search", CALL) for _ in range(4)]
    for result in results:
        assert result.is_error is False
        _check_against_schema(tool, result)
    assert results[0].structured_content["results"]
    if mode == "legacy":
        # one connection, one session: the third and fourth are the guard's answer, still
        # in the declared shape
        for repeated in results[2:]:
            assert repeated.structured_content["results"] == []
            assert "times in a row" in repeated.structured_content["message"]
    else:
        # the stateless protocol has no session: each call stands alone and is served
        assert all(r.structured_content["results"] for r in results)


class _StillIndexing(StaticTextSearch):
    """Answers "still being built, retry" twice, then searches."""

    def __init__(self) -> None:
        super().__init__(DOCS, match="any")
        self.refusals = 2

    def _fetch_sync(self, query: str, options: Any) -> Any:
        if self.refusals:
            self.refusals -= 1
            raise ServiceUnavailableError("still indexing; retry", provider="local")
        return super()._fetch_sync(query, options)


def test_a_retry_after_an_error_is_not_a_repeat() -> None:
    function = create_search_function(_StillIndexing(), name="search", description="d")
    first, second, third = (function.invoke_sync(CALL) for _ in range(3))
    assert "retry" in first and "retry" in second
    assert "times in a row" not in third and "backoff" in third.lower()


def test_sessions_are_counted_apart() -> None:
    function = create_search_function(StaticTextSearch(DOCS, match="any"), name="s")
    for _ in range(2):
        assert not function._run_sync(CALL, session="a").text.startswith("You have asked")
    assert function._run_sync(CALL, session="a").text.startswith("You have asked")
    # another session asking the same question is served
    assert not function._run_sync(CALL, session="b").text.startswith("You have asked")


def _env(tmp_path: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO_ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "retry.md").write_text("# Retry\n\nExponential backoff.\n", encoding="utf-8")
    return kb


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as stream:
        yield stream


@pytest.mark.anyio
@pytest.mark.parametrize("flag", [[], ["--no-repeat-guard"]])
async def test_textsearch_mcp_over_stdio_with_and_without_the_guard(
    folder: Path, tmp_path: Path, flag: list[str], errlog: TextIO
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "textsearch", "mcp", "--provider", "local", "--path", str(folder), *flag],
        env=_env(tmp_path),
        cwd=str(tmp_path),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            (tool,) = (await session.list_tools()).tools
            # the official client validates structuredContent against outputSchema
            results = [await session.call_tool("search", CALL) for _ in range(3)]
    for result in results:
        _check_against_schema(tool, result)
    third = results[2].structured_content
    if flag:
        assert third["results"], "with --no-repeat-guard every call is searched"
    else:
        assert third["results"] == [] and "times in a row" in third["message"]
