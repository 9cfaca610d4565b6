"""Anthropic search_result blocks, validated against the anthropic SDK's own param types."""

from __future__ import annotations

import json
from typing import Any

import pytest

from textsearch import TextSearchResult
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch

anthropic_types = pytest.importorskip("anthropic.types")

RESULTS = [
    TextSearchResult(
        name="Retry guide", value="Use exponential backoff.", link="https://d.example/retry"
    ),
    TextSearchResult(
        name="Timeouts", value="Thirty seconds by default.", link="https://d.example/t"
    ),
    TextSearchResult(name=None, value="A result without a title or link.", link=None),
]


def _check_typed_dict(value: Any, kind: Any) -> None:
    """``value`` has the keys of the SDK's TypedDict ``kind``: all required, none unknown."""
    assert isinstance(value, dict)
    assert kind.__required_keys__ <= set(value), (kind.__name__, value)
    assert set(value) <= set(kind.__annotations__), (kind.__name__, value)


def _validate(blocks: list[Any]) -> None:
    from pydantic import TypeAdapter

    content_type = anthropic_types.ToolResultBlockParam.__annotations__["content"]
    adapter = TypeAdapter(anthropic_types.ToolResultBlockParam)
    checked = adapter.validate_python(
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": blocks}
    )
    assert content_type is not None
    for block in list(checked["content"]):  # iterables are checked as they are consumed
        if block["type"] == "search_result":
            _check_typed_dict(block, anthropic_types.SearchResultBlockParam)
            texts = list(block["content"])
            assert texts and all(t["type"] == "text" and t["text"] for t in texts)
            for text in texts:
                _check_typed_dict(text, anthropic_types.TextBlockParam)
            _check_typed_dict(block["citations"], anthropic_types.CitationsConfigParam)
            assert block["citations"] == {"enabled": True}
            assert isinstance(block["source"], str) and block["source"]
            assert isinstance(block["title"], str) and block["title"]
        else:
            _check_typed_dict(block, anthropic_types.TextBlockParam)


@pytest.mark.parametrize("kind", ["search", "text_search_results", "search_results"])
def test_every_kind_gives_search_result_blocks_the_sdk_accepts(kind: str) -> None:
    function = create_search_function(StaticTextSearch(RESULTS, match="always"), kind=kind)  # type: ignore[arg-type]
    blocks = function.invoke_anthropic_sync({"query": "retry", "top": 3})
    _validate(blocks)
    assert [b["type"] for b in blocks] == ["search_result"] * 3
    first = blocks[0]
    assert first["source"] == "https://d.example/retry"  # type: ignore[typeddict-item]
    assert "exponential backoff" in first["content"][0]["text"]  # type: ignore[typeddict-item]
    if kind != "search_results":
        assert first["title"] == "Retry guide"  # type: ignore[typeddict-item]
    # a result without a link still has a source and a title
    last = blocks[2]
    assert last["source"] and last["title"]  # type: ignore[typeddict-item]


@pytest.mark.anyio
async def test_notes_errors_and_empty_answers_are_text_blocks() -> None:
    plugin = create_search_plugin(StaticTextSearch(RESULTS, match="always"))
    clamped = await plugin["search"].invoke_anthropic({"query": "retry", "top": 99})
    _validate(clamped)
    assert clamped[0] == {
        "type": "text",
        "text": "Note: top=99 is outside the maximum of 10; used top=10.",
    }
    empty = await create_search_plugin(StaticTextSearch([]))["search"].invoke_anthropic(
        {"query": "x"}
    )
    _validate(empty)
    assert [b["type"] for b in empty] == ["text"] and "No results" in empty[0]["text"]  # type: ignore[typeddict-item]
    bad = await plugin.anthropic_tool_result(
        {"id": "toolu_9", "name": "search", "input": {"top": 1}}
    )
    assert bad["is_error"] is True and bad["tool_use_id"] == "toolu_9"
    _validate(bad["content"])
    unknown = await plugin.anthropic_tool_result({"id": "toolu_8", "name": "nope", "input": {}})
    assert unknown["is_error"] is True and "available tools" in json.dumps(unknown)


def test_a_tool_use_block_of_the_sdk_is_answered() -> None:
    import asyncio

    block = anthropic_types.ToolUseBlock(
        id="toolu_3", name="search", input={"query": "retry"}, type="tool_use"
    )
    plugin = create_search_plugin(StaticTextSearch(RESULTS, match="always"))
    result = asyncio.run(plugin.anthropic_tool_result(block))
    assert result["tool_use_id"] == "toolu_3" and result["is_error"] is False
    from pydantic import TypeAdapter

    message = TypeAdapter(anthropic_types.MessageParam).validate_python(
        {"role": "user", "content": [result]}
    )
    assert message["role"] == "user"
    _validate(result["content"])
