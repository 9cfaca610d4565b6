"""Full tool-calling round trips through the official OpenAI and Anthropic clients.

The provider endpoints are mocked with respx. The official SDKs send through ``httpx2``, which
respx does not patch, so each client gets an ``httpx2.MockTransport`` that hands every request
to the respx router (converted to and from ``httpx``): respx matches the routes, answers with
the realistic payloads below and records the exact requests the SDK sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import respx
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.plugins import SearchPlugin, create_search_function, create_search_plugin


def _bridge(router: respx.MockRouter) -> httpx2.MockTransport:
    def handle(request: httpx2.Request) -> httpx2.Response:
        converted = httpx.Request(
            request.method,
            str(request.url),
            headers=request.headers.raw,
            content=request.read(),
        )
        response = router.handler(converted)
        return httpx2.Response(
            response.status_code, headers=response.headers.raw, content=response.read()
        )

    return httpx2.MockTransport(handle)


@pytest.fixture
def knowledge_base(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "retry.md").write_text(
        "# Retry policy\n\nRetry failed calls with exponential backoff and jitter, "
        "at most five times.\n",
        encoding="utf-8",
    )
    (folder / "cache.md").write_text(
        "# Caching\n\nCache search responses for five minutes.\n", encoding="utf-8"
    )
    return folder


def _plugin(local: LocalTextSearch) -> SearchPlugin:
    return create_search_plugin(local)


def _chat_completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-AbC123",
        "object": "chat.completion",
        "created": 1735689600,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_0aa8d3e20b",
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": {"prompt_tokens": 142, "completion_tokens": 23, "total_tokens": 165},
    }


@pytest.mark.anyio
async def test_openai_chat_completions_round_trip(knowledge_base: Path) -> None:
    tool_call = {
        "id": "call_Qx7Lw2",
        "type": "function",
        "function": {"name": "search", "arguments": '{"query":"retry backoff","top":2}'},
    }
    router = respx.MockRouter(assert_all_called=True, assert_all_mocked=True)
    route = router.post("https://api.openai.com/v1/chat/completions").mock(
        side_effect=[
            httpx.Response(
                200,
                json=_chat_completion(
                    {"role": "assistant", "content": None, "tool_calls": [tool_call]},
                    "tool_calls",
                ),
            ),
            httpx.Response(
                200,
                json=_chat_completion(
                    {
                        "role": "assistant",
                        "content": "Retry with exponential backoff and jitter [1].",
                        "refusal": None,
                    },
                    "stop",
                ),
            ),
        ]
    )
    with LocalTextSearch() as local:
        local.index_path(knowledge_base)
        plugin = _plugin(local)
        tools = plugin.to_openai_tools(strict=True)
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": "How should I retry failed calls?"}
        ]
        async with httpx2.AsyncClient(transport=_bridge(router)) as http_client:
            client = AsyncOpenAI(api_key="sk-test", http_client=http_client, max_retries=0)
            answer = None
            for _ in range(4):  # the usual agent loop
                completion = await client.chat.completions.create(
                    model="gpt-4o-mini", messages=messages, tools=tools
                )
                message = completion.choices[0].message
                if not message.tool_calls:
                    answer = message.content
                    break
                messages.append(message.model_dump(exclude_none=True))
                for call in message.tool_calls:
                    assert call.type == "function"
                    result = await plugin.invoke(call.function.name, call.function.arguments)
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
            await client.close()

    assert answer == "Retry with exponential backoff and jitter [1]."
    assert route.call_count == 2
    first = json.loads(route.calls[0].request.content)
    assert first["tools"] == tools
    assert first["tools"][0]["function"]["strict"] is True
    second = json.loads(route.calls[1].request.content)
    assistant, tool_message = second["messages"][1], second["messages"][2]
    assert assistant["tool_calls"][0]["id"] == "call_Qx7Lw2"
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_Qx7Lw2"
    result = json.loads(tool_message["content"])
    assert result["query"] == "retry backoff"
    assert [r["citation"] for r in result["results"]] == [1]
    assert result["results"][0]["link"].endswith("retry.md")
    assert result["results"][0]["name"] == "Retry policy"
    assert route.calls[1].request.headers["authorization"] == "Bearer sk-test"


@pytest.mark.anyio
async def test_anthropic_messages_round_trip_keeps_the_preset_filter() -> None:
    router = respx.MockRouter(assert_all_called=True, assert_all_mocked=True)
    first_reply = {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [
            {"type": "text", "text": "Let me search the docs."},
            {
                "type": "tool_use",
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "docs_search",
                # a model that asks for too much: clamped with a note, the preset kept
                "input": {"query": "cache", "top": 40},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 412, "output_tokens": 61},
    }
    final_reply = {
        **first_reply,
        "id": "msg_02",
        "content": [{"type": "text", "text": "Cache responses for five minutes."}],
        "stop_reason": "end_turn",
    }
    route = router.post("https://api.anthropic.com/v1/messages").mock(
        side_effect=[httpx.Response(200, json=first_reply), httpx.Response(200, json=final_reply)]
    )
    with LocalTextSearch() as local:
        local.add_documents(
            [
                {
                    "id": "a",
                    "title": "Cache",
                    "text": "Cache for five minutes.",
                    "link": "https://docs.example/cache",
                },
                {
                    "id": "b",
                    "title": "Cache (evil)",
                    "text": "Cache forever.",
                    "link": "https://evil.example/cache",
                },
            ]
        )
        function = create_search_function(
            local,
            kind="text_search_results",
            name="docs_search",
            filter=TextSearchFilter().equal_to("site", "docs.example"),
        )
        plugin = create_search_plugin(local, functions=[function])
        messages: list[dict[str, Any]] = [{"role": "user", "content": "How long to cache?"}]
        async with httpx2.AsyncClient(transport=_bridge(router)) as http_client:
            client = AsyncAnthropic(api_key="sk-ant-test", http_client=http_client, max_retries=0)
            reply = await client.messages.create(
                model="claude-haiku-4-5",
                max_tokens=512,
                messages=messages,  # type: ignore[arg-type]
                tools=plugin.to_anthropic_tools(),  # type: ignore[arg-type]
            )
            messages.append(
                {"role": "assistant", "content": [b.model_dump() for b in reply.content]}
            )
            results = []
            for block in reply.content:
                if block.type == "tool_use":
                    text = await plugin.invoke(block.name, block.input)  # type: ignore[arg-type]
                    results.append(
                        {"type": "tool_result", "tool_use_id": block.id, "content": text}
                    )
            messages.append({"role": "user", "content": results})
            final = await client.messages.create(
                model="claude-haiku-4-5",
                max_tokens=512,
                messages=messages,  # type: ignore[arg-type]
                tools=plugin.to_anthropic_tools(),  # type: ignore[arg-type]
            )
            await client.close()

    assert final.content[0].type == "text"
    first = json.loads(route.calls[0].request.content)
    assert first["tools"] == plugin.to_anthropic_tools()
    second = json.loads(route.calls[1].request.content)
    tool_result = second["messages"][2]["content"][0]
    assert tool_result["tool_use_id"] == "toolu_01A09q90qw90lq917835lq9"
    payload = json.loads(tool_result["content"])
    assert [r["link"] for r in payload["results"]] == ["https://docs.example/cache"]
    assert payload["notes"] == ["top=40 is outside the maximum of 10; used top=10."]
