"""SearchPlugin: the one-line default, custom functions, name rules and dispatch."""

from __future__ import annotations

import json

import pytest

from tests.plugins._support import ARTICLES, DOCS, ThirdPartySearch
from textsearch import ConfigurationError, InvalidRequestError
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch


@pytest.mark.anyio
async def test_one_line_gives_a_working_plugin() -> None:
    plugin = create_search_plugin(StaticTextSearch(DOCS, match="any"))
    assert plugin.name == "search"
    assert [f.name for f in plugin.functions] == ["search"]
    assert plugin["search"].kind == "text_search_results"
    payload = json.loads(await plugin.invoke("search", '{"query": "backoff", "top": 1}'))
    assert payload["results"][0]["link"] == "https://kb.example/retry"
    assert "search" in plugin and len(plugin) == 1 and list(plugin) == list(plugin.functions)


def test_functions_pick_and_customize() -> None:
    docs = StaticTextSearch(DOCS, match="any")
    web = ThirdPartySearch(ARTICLES)
    plugin = create_search_plugin(
        docs,
        name="research",
        description="Docs and web.",
        functions=[
            create_search_function(docs, name="docs", description="Search the docs."),
            create_search_function(web, kind="text_search_results", name="web"),
        ],
    )
    assert [t["function"]["name"] for t in plugin.to_openai_tools()] == ["docs", "web"]
    assert plugin.to_anthropic_tools()[0]["description"] == "Search the docs."
    assert plugin.invoke_sync("docs", {"query": "backoff", "top": 1}).startswith("Found 1 result")
    assert "a.example/retry" in plugin.invoke_sync("web", {"query": "retry"})
    assert repr(plugin) == "SearchPlugin(name='research', functions=['docs', 'web'])"


def test_duplicate_function_names_fail_at_creation() -> None:
    ts = StaticTextSearch(DOCS)
    with pytest.raises(ConfigurationError, match="two functions are named 'search'"):
        create_search_plugin(
            ts,
            functions=[
                create_search_function(ts),
                create_search_function(ts, kind="text_search_results", name="search"),
            ],
        )


@pytest.mark.parametrize(
    ("functions", "message"),
    [
        ([], "at least one function"),
        (["search"], "SearchFunction objects"),
        ("search", "list of SearchFunction"),
    ],
)
def test_bad_function_lists_fail_at_creation(functions: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        create_search_plugin(StaticTextSearch(DOCS), functions=functions)  # type: ignore[arg-type]


def test_bad_plugin_description_fails() -> None:
    with pytest.raises(ConfigurationError, match="description"):
        create_search_plugin(StaticTextSearch(DOCS), description="  ")


@pytest.mark.anyio
async def test_unknown_tool_name_gives_a_message_or_raises() -> None:
    plugin = create_search_plugin(StaticTextSearch(DOCS))
    text = await plugin.invoke("web_search", {"query": "x"})
    assert text == "Unknown tool 'web_search'; the available tools are: search."
    assert plugin.invoke_sync("nope", {}) == "Unknown tool 'nope'; the available tools are: search."
    with pytest.raises(InvalidRequestError, match="Unknown tool"):
        await plugin.invoke("web_search", {"query": "x"}, raise_errors=True)
    with pytest.raises(InvalidRequestError, match="Unknown tool"):
        plugin.invoke_sync("web_search", {"query": "x"}, raise_errors=True)
    with pytest.raises(KeyError):
        plugin["web_search"]


def test_importing_plugins_loads_no_provider_sdk() -> None:
    import subprocess
    import sys

    from tests.plugins._support import REPO_ROOT

    probe = (
        "import sys, textsearch.plugins as p; p.create_search_plugin; "
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'openai', 'anthropic', 'azure', 'jinja2')); print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.strip() == "[]"


def test_public_names_are_listed_and_import() -> None:
    import textsearch.plugins as plugins

    assert sorted(plugins.__all__) == [
        "AnthropicSearchResultBlock",
        "AnthropicTextBlock",
        "AnthropicTool",
        "AnthropicToolResult",
        "OpenAIChatTool",
        "OpenAIFunctionDefinition",
        "OpenAIResponsesTool",
        "SearchFunction",
        "SearchParameter",
        "SearchPlugin",
        "create_search_function",
        "create_search_plugin",
        "default_parameters",
        "web_filter_parameters",
    ]
    for name in plugins.__all__:
        assert getattr(plugins, name).__module__.startswith("textsearch.plugins")


def test_web_connectors_are_annotated_open_world_and_local_ones_are_not() -> None:
    from textsearch import BingTextSearch, BochaTextSearch, LocalTextSearch
    from textsearch.plugins import create_search_function

    web = [BingTextSearch(api_key="k-test"), BochaTextSearch(api_key="k-test")]
    for connector in web:
        tool = create_search_function(connector).to_mcp_tool()
        assert tool["annotations"]["openWorldHint"] is True
        connector.close()
    local = create_search_function(LocalTextSearch()).to_mcp_tool()
    assert local["annotations"]["openWorldHint"] is False


def test_an_unknown_tool_name_is_echoed_only_in_part() -> None:
    from textsearch.plugins import create_search_plugin
    from textsearch.testing import StaticTextSearch

    plugin = create_search_plugin(StaticTextSearch(["x"]))
    text = plugin.invoke_sync("x" * 10_000, {"query": "x"})
    assert text.startswith("Unknown tool 'xxx")
    assert len(text) < 200
    assert "the available tools are: search." in text
