"""MCP resources through the official client: capability, listing, documents and sections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from textsearch import LocalTextSearch
from textsearch.plugins import _mcp, create_search_function, create_search_plugin

GUIDE = """# Guide

Intro text about the service and its owners.

## Install

Run the installer with administrator rights.

## Usage

Call the walrus function with a query.

More words on the walrus function, in a second paragraph.
"""

NOTES = "A file without headings.\n\n" + "\n\n".join(f"Line {i} of filler text." for i in range(80))


def _folder(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "guide.md").write_text(GUIDE, encoding="utf-8")
    for i in range(5):
        (kb / f"note{i}.md").write_text(f"# Note {i}\n\nNote number {i}.\n", encoding="utf-8")
    return kb


async def _text(client: Client, uri: str) -> str:
    return str((await client.read_resource(uri)).contents[0].text)


@pytest.mark.anyio
async def test_resources_are_declared_listed_in_pages_and_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_mcp, "LIST_PAGE_SIZE", 4)
    local = LocalTextSearch()
    local.index_path(_folder(tmp_path))
    plugin = create_search_plugin(local)
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        capabilities = client.server_capabilities
        assert capabilities is not None and capabilities.resources is not None

        seen: list[Any] = []
        cursor = None
        pages = 0
        while True:
            page = await client.list_resources(cursor=cursor)
            assert len(page.resources) <= 4
            seen += page.resources
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        assert pages == 2
        names = sorted(r.name for r in seen)
        assert names == ["Guide", "Note 0", "Note 1", "Note 2", "Note 3", "Note 4"]
        assert len({r.uri for r in seen}) == 6
        # every listed resource reads as its document
        guide = next(r for r in seen if r.name == "Guide")
        assert guide.description is not None and guide.description.endswith("guide.md")
        whole = await _text(client, str(guide.uri))
        assert "owners" in whole and "administrator" in whole and "walrus" in whole

        with pytest.raises(MCPError, match="Unknown cursor"):
            await client.list_resources(cursor="not-a-cursor")


@pytest.mark.anyio
async def test_a_passage_link_reads_as_its_section(tmp_path: Path) -> None:
    kb = _folder(tmp_path)
    local = LocalTextSearch()
    local.index_path(kb)
    function = create_search_function(local, name="search", kind="text_search_results")
    plugin = create_search_plugin(local, functions=[function])
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        result = await client.call_tool("search", {"query": "walrus function"})
        (link,) = [b for b in result.content if b.type == "resource_link"]
        assert link.name == "Guide › Usage"
        section = await _text(client, str(link.uri))
        assert "Call the walrus function" in section and "second paragraph" in section
        assert "owners" not in section and "administrator" not in section
        # the same section by the link the model reads in the text, raw and as a file URI
        guide = kb / "guide.md"
        assert await _text(client, f"{guide}#usage") == section
        assert await _text(client, guide.as_uri() + "#usage") == section
        # the document's own URI and link: the whole document
        assert "owners" in await _text(client, guide.as_uri())
        assert "owners" in await _text(client, _mcp.document_uri(str(guide)))
        # part of the section
        assert await _text(client, f"{link.uri}?start=5&end=11") == section[5:11]
        # an anchor the document does not have is not the whole document
        with pytest.raises(MCPError, match="No document"):
            await _text(client, _mcp.document_uri(f"{guide}#gone"))


def test_a_long_section_is_read_whole_from_any_of_its_passages(tmp_path: Path) -> None:
    body = "\n\n".join(f"Paragraph {i} " + "filler words here " * 30 for i in range(12))
    text = f"# Doc\n\nTop.\n\n## Long\n\n{body}\n\n## After\n\nThe end.\n"
    path = tmp_path / "doc.md"
    path.write_text(text, encoding="utf-8")
    local = LocalTextSearch()
    local.index_path(tmp_path)
    hits = local.get_search_results_sync("Paragraph", top=50).results
    links = {d.link for d in hits if d.section == "Long"}
    assert links == {f"{path}#long"}  # split in several passages, one link
    section = local.get_section(f"{path}#long")
    assert section is not None and section.section == "Long"
    assert "Paragraph 0" in section.text and "Paragraph 11" in section.text
    assert "Top." not in section.text and "The end." not in section.text
    assert local.get_section(str(path)) is None  # no fragment: not a passage link
    lines = local.get_section(f"{path}#L1")
    assert lines is None


def test_list_documents_pages_by_id_and_filters(tmp_path: Path) -> None:
    from textsearch import TextSearchFilter
    from textsearch.errors import InvalidRequestError, UnsupportedFilterError

    local = LocalTextSearch()
    local.add_documents(
        [
            {"id": f"d{i}", "title": f"T{i}", "text": "x", "metadata": {"even": i % 2 == 0}}
            for i in range(7)
        ]
    )
    first = local.list_documents(limit=3)
    assert [d.id for d in first] == ["d0", "d1", "d2"] and all(d.text == "" for d in first)
    assert [d.id for d in local.list_documents(after="d2", limit=3)] == ["d3", "d4", "d5"]
    even = TextSearchFilter().equal_to("even", True)
    assert [d.id for d in local.list_documents(filter=even)] == ["d0", "d2", "d4", "d6"]
    with pytest.raises(InvalidRequestError):
        local.list_documents(limit=0)
    with pytest.raises(UnsupportedFilterError):
        local.list_documents(filter=TextSearchFilter().equal_to("bad key!", 1))


def test_a_line_link_reads_its_passage(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    local = LocalTextSearch()
    local.index_path(tmp_path)
    hits = local.get_search_results_sync("filler", top=50).results
    lines = sorted({d.link for d in hits if d.link and "#L" in d.link})
    assert lines, "a long file without headings has line links"
    passage = local.get_section(lines[-1])
    assert passage is not None and passage.link == lines[-1]
    assert passage.text in (local.get_document(str(tmp_path / "notes.txt")) or passage).text
    assert "A file without headings." not in passage.text  # not the whole file
