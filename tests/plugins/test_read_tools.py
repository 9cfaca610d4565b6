"""read_document and fetch_page: every tool format, MCP, and a preset filter they never widen."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from textsearch import ConfigurationError, LocalTextSearch, TextSearchFilter
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch

PUBLIC = """# Public guide

Intro words about the public guide.

## Retry policy

Retries happen three times with exponential backoff.

## Timeouts

Every call has a deadline of thirty seconds.
"""
SECRET = """# Secret plan

The launch code is WALRUS-7.

## Retry policy

Secret retries use the WALRUS channel.
"""
PUBLIC_ONLY = TextSearchFilter().equal_to("team", "public")


@pytest.fixture
def local() -> Iterator[LocalTextSearch]:
    search = LocalTextSearch()
    search.add_documents(
        [
            {
                "id": "pub",
                "title": "Public",
                "text": PUBLIC,
                "link": "https://docs.example/guide",
                "metadata": {"team": "public"},
            },
            {
                "id": "sec",
                "title": "Secret",
                "text": SECRET,
                "link": "https://docs.example/plan",
                "metadata": {"team": "secret"},
            },
        ],
        chunk=True,
    )
    yield search
    search.close()


SECTION = "https://docs.example/guide#retry-policy"
OUTSIDE = ["https://docs.example/plan", "sec", "https://docs.example/plan#retry-policy"]


def _refused(text: str) -> None:
    assert "WALRUS" not in text and "launch" not in text
    assert "can be read here" in text


def test_read_document_in_openai_chat_format(local: LocalTextSearch) -> None:
    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    assert [f.name for f in plugin] == ["search", "read_document"]
    tools = plugin.to_openai_tools(strict=True)
    read = tools[1]["function"]
    assert read["name"] == "read_document" and read["strict"] is True
    assert read["parameters"]["required"] == ["link", "start"]
    assert read["parameters"]["additionalProperties"] is False
    # the model's call, as Chat Completions sends it: a JSON string, null for the default
    found = json.loads(
        plugin.invoke_sync("search", '{"query": "retry policy", "top": null, "skip": null}')
    )
    links = [r["link"] for r in found["results"]]
    assert links and all(link.startswith("https://docs.example/guide") for link in links)
    answer = json.loads(
        plugin.invoke_sync("read_document", json.dumps({"link": SECTION, "start": None}))
    )
    assert answer["section"] == "Retry policy"
    assert answer["text"] == "Retries happen three times with exponential backoff."
    # the section's link without its fragment: the whole document
    whole = json.loads(plugin.invoke_sync("read_document", {"link": "https://docs.example/guide"}))
    assert "Intro words" in whole["text"] and "thirty seconds" in whole["text"]
    assert whole["section"] is None and whole["total_chars"] == len(whole["text"])
    for link in OUTSIDE:
        _refused(plugin.invoke_sync("read_document", {"link": link}))


@pytest.mark.anyio
async def test_read_document_in_responses_format_pages_through_long_text(
    local: LocalTextSearch,
) -> None:
    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True, max_read_chars=100)
    (read,) = [t for t in plugin.to_openai_responses_tools() if t["name"] == "read_document"]
    assert read["type"] == "function" and read["strict"] is True
    first = json.loads(await plugin.invoke("read_document", '{"link": "pub", "start": null}'))
    assert first["end"] == 100 and first["next_start"] == 100
    rest = json.loads(await plugin.invoke("read_document", {"link": "pub", "start": 100}))
    assert "next_start" not in rest
    assert first["text"] + rest["text"] == local.get_document("pub").text  # type: ignore[union-attr]
    for link in OUTSIDE:
        _refused(await plugin.invoke("read_document", {"link": link, "start": 0}))
    bad = await plugin.invoke("read_document", {"link": "pub", "start": -1})
    assert bad.startswith("Invalid arguments for read_document")
    unknown = await plugin.invoke("read_document", {"link": "pub", "filter": None})
    assert "unknown argument" in unknown


@pytest.mark.anyio
async def test_read_document_in_anthropic_format(local: LocalTextSearch) -> None:
    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    (tool,) = [t for t in plugin.to_anthropic_tools() if t["name"] == "read_document"]
    assert tool["input_schema"]["required"] == ["link"]
    ok = await plugin.anthropic_tool_result(
        {"id": "toolu_1", "name": "read_document", "input": {"link": SECTION}}
    )
    assert ok["is_error"] is False and ok["tool_use_id"] == "toolu_1"
    (block,) = ok["content"]
    assert block["type"] == "search_result" and block["source"] == SECTION
    assert block["title"] == "Public › Retry policy"
    assert block["content"][0]["text"].startswith("Retries happen")
    for link in OUTSIDE:
        refused = await plugin.anthropic_tool_result(
            {"id": "toolu_2", "name": "read_document", "input": {"link": link}}
        )
        assert refused["is_error"] is True
        assert [b["type"] for b in refused["content"]] == ["text"]
        _refused(json.dumps(refused))


def test_raise_errors_gives_an_invalid_request_for_a_refused_link(local: LocalTextSearch) -> None:
    from textsearch import InvalidRequestError

    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    with pytest.raises(InvalidRequestError, match="can be read here") as caught:
        plugin["read_document"].invoke_sync({"link": "sec"}, raise_errors=True)
    assert "WALRUS" not in str(caught.value)


def test_read_tools_take_the_functions_preset_and_refuse_what_cannot_be_bounded(
    local: LocalTextSearch,
) -> None:
    search = create_search_function(local, filter=PUBLIC_ONLY)
    plugin = create_search_plugin(local, functions=[search], read_tools=True)
    assert plugin["read_document"].filter == PUBLIC_ONLY
    _refused(plugin.invoke_sync("read_document", {"link": "sec"}))
    other = create_search_function(
        local, name="secret_search", filter=TextSearchFilter().equal_to("team", "secret")
    )
    with pytest.raises(ConfigurationError, match="different preset filters"):
        create_search_plugin(local, functions=[search, other], read_tools=True)
    with pytest.raises(ConfigurationError, match="reads documents"):
        create_search_plugin(StaticTextSearch([]), read_tools=True)
    with pytest.raises(ConfigurationError, match="checked"):
        create_search_plugin(local, filter=PUBLIC_ONLY, fetch=True)
    with pytest.raises(ConfigurationError, match="filter must be a TextSearchFilter"):
        create_search_plugin(local, filter={"team": "public"}, read_tools=True)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_read_tools_over_mcp_with_the_official_client(local: LocalTextSearch) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from textsearch.plugins._mcp import document_uri

    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"search", "read_document"}
        assert tools["read_document"].annotations is not None
        assert tools["read_document"].annotations.read_only_hint is True
        result = await client.call_tool("read_document", {"link": SECTION})
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["text"].startswith("Retries happen")
        for link in OUTSIDE:
            refused = await client.call_tool("read_document", {"link": link})
            assert refused.is_error and refused.structured_content is None
            _refused(refused.content[0].text)  # type: ignore[union-attr]
        # resources as before, bounded by the same preset
        listed = (await client.list_resources()).resources
        assert [r.name for r in listed] == ["Public"]
        whole = (await client.read_resource(document_uri("pub"))).contents[0].text  # type: ignore[union-attr]
        assert "Intro words" in whole and "thirty seconds" in whole  # the whole document (#30)
        own_link = (await client.read_resource(document_uri("https://docs.example/guide"))).contents
        assert own_link[0].text == whole  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="No document"):
            await client.read_resource(document_uri("sec"))


# -- fetch_page --------------------------------------------------------------------------------


PAGES = {
    "/page.html": (
        200,
        "<html><head><title>Retry guide</title></head><body><main>"
        "<p>Use exponential backoff with jitter.</p></main></body></html>",
        {},
    ),
    "/away": (302, "", {"Location": "http://other.example:{port}/secret.html"}),
    "/secret.html": (200, "<html><body><p>WALRUS-7 launch code</p></body></html>", {}),
}


def _handler(port_holder: list[int]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            status, body, headers = PAGES.get(self.path, (404, "missing", {}))
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value.format(port=port_holder[0]))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def web_port() -> Iterator[int]:
    holder = [0]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(holder))
    holder[0] = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _resolver(table: dict[str, Sequence[str]]) -> Any:
    async def resolve(host: str, port: int) -> Sequence[str]:
        if host not in table:
            raise OSError(f"no such host {host}")
        return table[host]

    return resolve


@pytest.mark.anyio
async def test_fetch_page_under_a_site_filter(local: LocalTextSearch, web_port: int) -> None:
    names = {"docs.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]}
    plugin = create_search_plugin(
        local,
        filter=TextSearchFilter().equal_to("site", "docs.example"),
        fetch={"allow_private": True, "resolver": _resolver(names), "timeout": 5.0},
    )
    assert [f.name for f in plugin] == ["search", "fetch_page"]
    (tool,) = [t for t in plugin.to_mcp_tools() if t["name"] == "fetch_page"]
    assert tool["annotations"]["openWorldHint"] is True
    base = f"http://docs.example:{web_port}"
    page = json.loads(await plugin.invoke("fetch_page", {"url": base + "/page.html"}))
    assert page["title"] == "Retry guide" and "exponential backoff" in page["text"]
    # another host, a redirect that leaves the site, a scheme the fetcher does not read
    for url in (
        f"http://other.example:{web_port}/secret.html",
        base + "/away",
        "file:///etc/passwd",
    ):
        text = await plugin.invoke("fetch_page", {"url": url})
        assert "WALRUS" not in text and "launch" not in text
        assert "outside" in text or "Only http and https" in text
    # the Anthropic blocks of a page
    blocks = await plugin["fetch_page"].invoke_anthropic({"url": base + "/page.html"})
    assert blocks[0]["type"] == "search_result" and blocks[0]["title"] == "Retry guide"


def test_fetch_page_refuses_private_addresses_by_default(
    local: LocalTextSearch, web_port: int
) -> None:
    plugin = create_search_plugin(local, fetch=True)
    text = plugin.invoke_sync("fetch_page", {"url": f"http://127.0.0.1:{web_port}/page.html"})
    assert "Use exponential" not in text
    assert text.startswith("The page") and "could not be read" in text
    assert plugin.invoke_sync("fetch_page", {"url": "http://169.254.169.254/latest"}).startswith(
        "The page"
    )
    with pytest.raises(ConfigurationError, match="unknown options: "):
        create_search_plugin(local, fetch={"allow_everything": True})


@pytest.mark.anyio
async def test_fetch_page_does_not_open_mcp_resources_past_a_preset(local: LocalTextSearch) -> None:
    from mcp import Client

    search = create_search_function(local, filter=PUBLIC_ONLY)
    # the fetch tool would inherit the 'team' preset, which no URL can be checked against
    with pytest.raises(ConfigurationError, match="checked"):
        create_search_plugin(local, functions=[search], fetch=True)
    # an explicit empty preset lets it fetch any public page; the index stays bounded
    plugin = create_search_plugin(local, functions=[search], filter=TextSearchFilter(), fetch=True)
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        assert [r.name for r in (await client.list_resources()).resources] == ["Public"]


# -- the framework adapters build from the plugin ------------------------------------------------


@pytest.mark.anyio
async def test_read_document_through_the_langchain_and_openai_agents_adapters(
    local: LocalTextSearch,
) -> None:
    pytest.importorskip("langchain_core")
    pytest.importorskip("agents")
    from agents.tool_context import ToolContext
    from langchain_core.messages import ToolMessage

    from textsearch.integrations.langchain import as_langchain_tool
    from textsearch.integrations.openai_agents import as_openai_agents_tool

    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    tools = {t.name: t for t in as_langchain_tool(plugin)}
    assert set(tools) == {"search", "read_document"}
    call = {"name": "read_document", "args": {"link": SECTION}, "id": "c1", "type": "tool_call"}
    message = await tools["read_document"].ainvoke(call)
    assert isinstance(message, ToolMessage) and message.status == "success"
    assert "Retries happen" in str(message.content)
    for link in OUTSIDE:
        refused = tools["read_document"].invoke({**call, "args": {"link": link}})
        assert isinstance(refused, ToolMessage)
        _refused(str(refused.content))

    (agent_tool,) = [t for t in as_openai_agents_tool(plugin) if t.name == "read_document"]
    assert agent_tool.params_json_schema["required"] == ["link", "start"]
    arguments = json.dumps({"link": "https://docs.example/plan", "start": None})
    context = ToolContext(
        context=None, tool_name="read_document", tool_call_id="c2", tool_arguments=arguments
    )
    text = await agent_tool.on_invoke_tool(context, arguments)
    _refused(str(text))
    arguments = json.dumps({"link": SECTION, "start": None})
    context = ToolContext(
        context=None, tool_name="read_document", tool_call_id="c3", tool_arguments=arguments
    )
    assert json.loads(str(await agent_tool.on_invoke_tool(context, arguments)))["section"] == (
        "Retry policy"
    )


@pytest.mark.anyio
async def test_read_document_through_the_llama_index_and_semantic_kernel_adapters(
    local: LocalTextSearch,
) -> None:
    pytest.importorskip("llama_index.core")
    pytest.importorskip("semantic_kernel")
    from semantic_kernel import Kernel

    from textsearch.integrations.llama_index import as_llama_index_tool
    from textsearch.integrations.semantic_kernel import as_kernel_plugin

    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    (tool,) = [t for t in as_llama_index_tool(plugin) if t.metadata.name == "read_document"]
    assert json.loads(str(tool.call(link=SECTION)))["section"] == "Retry policy"
    _refused(str(tool.call(link="sec")))

    kernel = Kernel()
    kernel_plugin = as_kernel_plugin(plugin)
    kernel.add_plugin(kernel_plugin)
    answer = await kernel.invoke(
        plugin_name=kernel_plugin.name, function_name="read_document", link=SECTION
    )
    assert "Retries happen" in str(answer)
    refused = await kernel.invoke(
        plugin_name=kernel_plugin.name, function_name="read_document", link="sec"
    )
    _refused(str(refused))
