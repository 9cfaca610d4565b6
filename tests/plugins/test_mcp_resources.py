"""MCP resources through the official client: capability, listing, templates, section reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from textsearch import LocalTextSearch
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.plugins._mcp import RESOURCE_PAGE_SIZE, document_uri

GUIDE = """# Guide

Opening words of the guide.

## Retry policy

Retry failed calls with exponential backoff.

## Timeouts

Every call has a deadline of thirty seconds.
"""


def _index(tmp_path: Path, extra: int = 0) -> LocalTextSearch:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "guide.md").write_text(GUIDE, encoding="utf-8")
    local = LocalTextSearch()
    local.index_path(folder)
    if extra:
        local.add_documents(
            [{"id": f"doc-{n:03}", "title": f"Doc {n}", "text": f"text {n}"} for n in range(extra)]
        )
    return local


@pytest.mark.anyio
async def test_resources_capability_list_templates_and_section_reads(tmp_path: Path) -> None:
    local = _index(tmp_path)
    guide = tmp_path / "kb" / "guide.md"
    plugin = create_search_plugin(local)
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        assert client.server_capabilities.resources is not None
        listed = await client.list_resources()
        assert [r.uri for r in listed.resources] == [document_uri(str(guide))]
        assert listed.resources[0].name == "Guide"
        assert listed.next_cursor is None
        templates = (await client.list_resource_templates()).resource_templates
        assert templates[0].uri_template.startswith("textsearch://documents/{id}")
        # a search result links to its passage; reading the link gives that section only
        result = await client.call_tool("search", {"query": "deadline seconds"})
        links = [c.uri for c in result.content if c.type == "resource_link"]
        assert links and links[0] == document_uri(f"{guide}#timeouts")
        section = (await client.read_resource(links[0])).contents[0].text
        assert section == "Every call has a deadline of thirty seconds."
        # the same section by the raw passage link and by its file:// URI
        for uri in (f"{guide}#retry-policy", guide.as_uri() + "#retry-policy"):
            text = (await client.read_resource(uri)).contents[0].text
            assert text == "Retry failed calls with exponential backoff."
        # the document's own URI: the whole document
        whole = (await client.read_resource(document_uri(str(guide)))).contents[0].text
        assert "Opening words" in whole and "backoff" in whole and "thirty seconds" in whole


@pytest.mark.anyio
async def test_resources_list_is_paginated_and_disjoint(tmp_path: Path) -> None:
    local = _index(tmp_path, extra=RESOURCE_PAGE_SIZE + 20)
    plugin = create_search_plugin(local)
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        first = await client.list_resources()
        assert len(first.resources) == RESOURCE_PAGE_SIZE and first.next_cursor
        second = await client.list_resources(cursor=first.next_cursor)
        assert second.next_cursor is None
        uris = [r.uri for r in first.resources] + [r.uri for r in second.resources]
        assert len(uris) == len(set(uris)) == RESOURCE_PAGE_SIZE + 21
        with pytest.raises(MCPError, match="cursor"):
            await client.list_resources(cursor="not-a-cursor")


def test_get_section_and_list_documents(tmp_path: Path) -> None:
    local = _index(tmp_path, extra=3)
    guide = str(tmp_path / "kb" / "guide.md")
    section = local.get_section(f"{guide}#retry-policy")
    assert section is not None and section.title == "Guide — Retry policy"
    assert section.text == "Retry failed calls with exponential backoff."
    assert local.get_section(f"{guide}#no-such-section") is None
    assert local.get_section(guide) is None  # no fragment: not a section
    page = local.list_documents(limit=2)
    assert [d.id for _, d in page] == [guide, "doc-000"]
    rest = local.list_documents(after=page[-1][0])
    assert [d.id for _, d in rest] == ["doc-001", "doc-002"]


@pytest.mark.anyio
async def test_a_function_without_documents_serves_no_resources(tmp_path: Path) -> None:
    from tests.plugins._support import ARTICLES, ThirdPartySearch

    plugin = create_search_plugin(
        ThirdPartySearch(ARTICLES), functions=[create_search_function(ThirdPartySearch(ARTICLES))]
    )
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        assert client.server_capabilities.resources is None
