"""Portable web filters as optional tool parameters, offered where honoured."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

import pytest
import respx

from textsearch import (
    BochaTextSearch,
    BraveTextSearch,
    ConfigurationError,
    ExaTextSearch,
    LocalTextSearch,
    SearxngTextSearch,
    TavilyTextSearch,
    TextSearchFilter,
)
from textsearch.plugins import (
    create_search_function,
    default_parameters,
    web_filter_parameters,
)

BRAVE = "https://api.search.brave.com/res/v1/web/search"
BRAVE_OK: dict[str, Any] = {
    "type": "search",
    "web": {"results": [{"title": "t", "url": "https://docs.python.org/3/", "description": "d"}]},
}


def names(connector: object, fields: Any = None) -> list[str]:
    return [p.name for p in web_filter_parameters(connector, fields)]


def test_only_the_fields_each_connector_honours() -> None:
    brave, tavily = BraveTextSearch("k-0123456789"), TavilyTextSearch("k-0123456789")
    exa, bocha = ExaTextSearch("k-0123456789"), BochaTextSearch("k-0123456789")
    searxng = SearxngTextSearch("http://searx.test")
    all_six = ["site", "exclude_site", "freshness", "language", "country", "safe_search"]
    assert names(brave) == all_six
    assert names(tavily) == ["site", "exclude_site", "freshness", "country"]
    assert names(exa) == ["site", "exclude_site", "freshness", "country", "safe_search"]
    assert names(bocha) == ["site", "exclude_site", "freshness"]
    assert names(searxng) == ["site", "exclude_site", "freshness", "language", "safe_search"]
    assert names(LocalTextSearch()) == []
    assert names(brave, ["freshness", "site"]) == ["site", "freshness"]


def test_unknown_field_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        web_filter_parameters(BraveTextSearch("k-0123456789"), ["mkt"])
    with pytest.raises(ConfigurationError):
        web_filter_parameters(BraveTextSearch("k-0123456789"), "site")


def test_schema_lists_them_as_optional() -> None:
    brave = BraveTextSearch("k-0123456789")
    function = create_search_function(
        brave, parameters=[*default_parameters(), *web_filter_parameters(brave)]
    )
    schema = function.parameters_json_schema
    assert schema["required"] == ["query"]
    assert schema["properties"]["safe_search"]["enum"] == ["off", "moderate", "strict"]
    assert "a.com|b.com" in schema["properties"]["site"]["description"]
    strict = function.to_openai_tool(strict=True)["function"]["parameters"]
    assert strict["properties"]["freshness"]["type"] == ["string", "null"]


def test_model_filters_reach_the_wire_and_cannot_widen_a_preset() -> None:
    brave = BraveTextSearch("k-0123456789", max_retries=0)
    function = create_search_function(
        brave,
        kind="text_search_results",
        parameters=[*default_parameters(), *web_filter_parameters(brave)],
        filter=TextSearchFilter().equal_to("site", "python.org"),
    )
    with respx.mock() as mock:
        route = mock.get(BRAVE).respond(200, json=BRAVE_OK)
        text = function.invoke_sync(
            {"query": "asyncio", "site": "docs.python.org", "freshness": "week", "country": "gb"}
        )
        assert "docs.python.org" in text
        params = dict(route.calls.last.request.url.params.multi_items())
        assert params["q"] == "asyncio site:docs.python.org"  # the narrower of the two
        assert (params["freshness"], params["country"]) == ("pw", "GB")

        refused = function.invoke_sync({"query": "asyncio", "site": "evil.example"})
        assert route.call_count == 1  # nothing was sent for the widening attempt
    assert "no domain in common" in refused
    brave.close()


def test_a_bad_value_from_the_model_is_a_message_not_a_request() -> None:
    tavily = TavilyTextSearch("k-0123456789")
    function = create_search_function(
        tavily, parameters=[*default_parameters(), *web_filter_parameters(tavily)]
    )
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post("https://api.tavily.com/search").respond(200, json={"results": []})
        text = function.invoke_sync({"query": "q", "freshness": "last tuesday"})
    assert route.call_count == 0
    assert "freshness" in text
    assert json.dumps({"x": 1})  # arguments stay JSON-able


@pytest.mark.parametrize(
    "connector",
    [
        lambda: BraveTextSearch("k-0123456789"),
        lambda: TavilyTextSearch("k-0123456789"),
        lambda: ExaTextSearch("k-0123456789"),
        lambda: SearxngTextSearch("http://searx.test"),
    ],
)
def test_new_web_connectors_are_annotated_open_world(connector: Any) -> None:
    tool = create_search_function(connector()).to_mcp_tool()
    assert tool["annotations"]["openWorldHint"] is True


# -- textsearch mcp --provider searxng, over stdio, against an emulated instance -------------


@pytest.fixture
def errlog(tmp_path: Any) -> Iterator[TextIO]:
    with open(tmp_path / "err.txt", "w", encoding="utf-8") as stream:
        yield stream


@pytest.mark.anyio
async def test_textsearch_mcp_with_a_web_provider_offers_and_applies_site(
    tmp_path: Any, errlog: TextIO
) -> None:
    import sys

    from mcp import ClientSession, StdioServerParameters, stdio_client

    from tests.emulators.searxng import searxng
    from tests.plugins._support import REPO_ROOT

    with searxng(total=3) as instance:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "textsearch", "mcp", "--provider", "searxng"],
            env={
                "PYTHONPATH": str(REPO_ROOT),
                "SEARXNG_URL": instance.url,
                "XDG_CACHE_HOME": str(tmp_path / "cache"),
            },
            cwd=str(tmp_path),
        )
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                (tool,) = (await session.list_tools()).tools
                assert tool.annotations is not None and tool.annotations.open_world_hint is True
                assert "site" in tool.input_schema["properties"]
                assert "country" not in tool.input_schema["properties"]
                result = await session.call_tool(
                    "search", {"query": "corpus", "site": "site0.example"}
                )
                assert result.is_error is False
    assert instance.requests[0]["query"]["q"] == "corpus site:site0.example"
    errlog.flush()
    assert "Traceback" not in (tmp_path / "err.txt").read_text(encoding="utf-8")
