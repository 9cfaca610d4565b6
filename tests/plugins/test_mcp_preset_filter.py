"""A preset filter holds for every path an MCP client can take, resources included.

A tool made with ``create_search_function(search, filter=preset)`` never returns a hidden
document; the MCP server built from it must not serve that document either, by its id, its
link, its ``file://`` URI or a passage link.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.plugins import create_search_function, create_search_plugin

PUBLIC = TextSearchFilter().equal_to("public", True)


def _index(tmp_path: Path) -> LocalTextSearch:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "secret.md").write_text("# Salaries\n\nThe salary table.\n", encoding="utf-8")
    local = LocalTextSearch()
    local.index_path(folder)
    local.add_documents(
        [
            {
                "id": "open",
                "title": "Holidays",
                "text": "Holidays are listed here.",
                "link": "https://kb.example/holidays",
                "metadata": {"public": True},
            },
            {
                "id": "closed",
                "title": "Payroll",
                "text": "Payroll runs on the last day.",
                "link": "https://kb.example/payroll#run",
                "metadata": {"public": False},
            },
            {
                "id": "one",
                "title": "Numbers",
                "text": "A document whose flag is the number one, not true.",
                "link": "https://kb.example/one",
                "metadata": {"public": 1},
            },
        ]
    )
    return local


async def _read(client: Client, uri: str) -> str:
    return str((await client.read_resource(uri)).contents[0].text)


def _hidden_uris(local: LocalTextSearch, tmp_path: Path) -> list[str]:
    secret = tmp_path / "kb" / "secret.md"
    document = local.get_document(str(secret))
    assert document is not None  # it is in the index: only the filter hides it
    return [
        "textsearch://documents/closed",
        "textsearch://documents/https%3A%2F%2Fkb.example%2Fpayroll%23run",
        "textsearch://documents/https%3A%2F%2Fkb.example%2Fpayroll",
        "https://kb.example/payroll#run",
        "textsearch://documents/one",
        f"textsearch://documents/{document.id}",
        secret.as_uri(),
        secret.as_uri() + "#salaries",
        str(secret),
        "textsearch://documents/closed?start=0&end=5",
    ]


@pytest.mark.anyio
async def test_a_preset_filter_hides_documents_from_resource_reads(tmp_path: Path) -> None:
    local = _index(tmp_path)
    function = create_search_function(local, kind="text_search_results", filter=PUBLIC)
    plugin = create_search_plugin(local, functions=[function])
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        assert "Holidays are listed" in await _read(client, "textsearch://documents/open")
        assert "Holidays" in await _read(client, "https://kb.example/holidays")
        for uri in _hidden_uris(local, tmp_path):
            with pytest.raises(MCPError, match="No document"):
                await _read(client, uri)
        # the tool itself agrees
        result = await client.call_tool("search", {"query": "payroll salary number"})
        assert "Payroll" not in str(result.content[0].text)
        assert "Salaries" not in str(result.content[0].text)


@pytest.mark.anyio
async def test_a_document_is_readable_when_any_tool_could_return_it(tmp_path: Path) -> None:
    local = _index(tmp_path)
    plugin = create_search_plugin(
        local,
        functions=[
            create_search_function(local, name="public", filter=PUBLIC),
            create_search_function(
                local, name="payroll", filter=TextSearchFilter().equal_to("id", "closed")
            ),
        ],
    )
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        assert "Payroll" in await _read(client, "textsearch://documents/closed")
        assert "Holidays" in await _read(client, "textsearch://documents/open")
        with pytest.raises(MCPError, match="No document"):
            await _read(client, "textsearch://documents/one")
    unfiltered = create_search_plugin(local)  # no preset filter: every document
    async with Client(unfiltered.create_mcp_server(), cache=None) as client:
        assert "Payroll" in await _read(client, "textsearch://documents/closed")


class _ReaderWithoutFilter:
    """A third-party search whose ``get_document`` cannot apply a filter."""

    provider_name = "third"

    def __init__(self, local: LocalTextSearch) -> None:
        self._local = local

    def get_document(self, key: str) -> Any:
        return self._local.get_document(key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._local, name)


@pytest.mark.anyio
async def test_a_reader_that_cannot_filter_is_not_used_under_a_preset(tmp_path: Path) -> None:
    local = _index(tmp_path)
    third = _ReaderWithoutFilter(local)
    function = create_search_function(third, filter=PUBLIC)  # type: ignore[arg-type]
    plugin = create_search_plugin(third, functions=[function])  # type: ignore[arg-type]
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        for uri in ("textsearch://documents/closed", "textsearch://documents/open"):
            with pytest.raises(MCPError):
                await _read(client, uri)


def test_get_document_applies_the_filter(tmp_path: Path) -> None:
    local = _index(tmp_path)
    assert local.get_document("closed", filter=PUBLIC) is None
    assert local.get_document("one", filter=PUBLIC) is None  # 1 is not true
    assert local.get_document("https://kb.example/payroll#run", filter=PUBLIC) is None
    found = local.get_document("open", filter=PUBLIC)
    assert found is not None and found.id == "open"
    assert local.get_document("closed") is not None
    site = TextSearchFilter().equal_to("site", "kb.example")
    assert local.get_document("closed", filter=site) is not None


@pytest.mark.anyio
async def test_a_preset_filter_hides_documents_from_listing_and_section_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textsearch.plugins import _mcp

    monkeypatch.setattr(_mcp, "LIST_PAGE_SIZE", 1)  # every page boundary is crossed
    local = _index(tmp_path)
    notes = tmp_path / "kb" / "notes.md"
    notes.write_text("# Notes\n\nTop.\n\n## Pay\n\nPay day details.\n", encoding="utf-8")
    local.index_path(tmp_path / "kb")
    assert local.get_section(f"{notes}#pay") is not None  # readable without the preset
    function = create_search_function(local, kind="text_search_results", filter=PUBLIC)
    plugin = create_search_plugin(local, functions=[function])
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        uris: list[str] = []
        cursor = None
        while True:
            page = await client.list_resources(cursor=cursor)
            uris += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert uris == ["textsearch://documents/open"]
        for uri in (f"{notes}#pay", notes.as_uri() + "#pay", _mcp.document_uri(f"{notes}#pay")):
            with pytest.raises(MCPError, match="No document"):
                await _read(client, uri)
    # two tools, one of them unfiltered: everything is listed once
    both = create_search_plugin(
        local, functions=[function, create_search_function(local, name="all")]
    )
    async with Client(both.create_mcp_server(), cache=None) as client:
        listed: list[str] = []
        cursor = None
        while True:
            page = await client.list_resources(cursor=cursor)
            listed += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert len(listed) == len(set(listed)) == 5
        assert "Pay day" in await _read(client, f"{notes}#pay")


@pytest.mark.anyio
async def test_listing_is_the_union_of_the_presets(tmp_path: Path) -> None:
    local = _index(tmp_path)
    plugin = create_search_plugin(
        local,
        functions=[
            create_search_function(local, name="public", filter=PUBLIC),
            create_search_function(
                local, name="payroll", filter=TextSearchFilter().equal_to("id", "closed")
            ),
        ],
    )
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        page = await client.list_resources()
        assert sorted(str(r.uri) for r in page.resources) == [
            "textsearch://documents/closed",
            "textsearch://documents/open",
        ]
        assert page.next_cursor is None
