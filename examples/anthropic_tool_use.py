"""A full tool-use loop with the official Anthropic SDK and a textsearch plugin.

    pip install textsearch-sdk anthropic
    ANTHROPIC_API_KEY=sk-ant-... python examples/anthropic_tool_use.py "How long do we cache?"

Without ANTHROPIC_API_KEY it explains what it would do and shows the tool definition and one
tool answer, offline. ANTHROPIC_MODEL picks the model (default claude-haiku-4-5).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.plugins import (
    SearchParameter,
    SearchPlugin,
    create_search_function,
    create_search_plugin,
)

HANDBOOK = [
    {
        "id": "retry",
        "title": "Retry policy",
        "text": "Retry failed calls at most five times with exponential backoff and jitter.",
        "link": "https://handbook.example/retry",
        "metadata": {"audience": "staff", "team": "platform"},
    },
    {
        "id": "cache",
        "title": "Caching",
        "text": "Cache search responses for five minutes; never cache errors.",
        "link": "https://handbook.example/cache",
        "metadata": {"audience": "staff", "team": "search"},
    },
    {
        "id": "salaries",
        "title": "Salary bands",
        "text": "Confidential: salary bands per level.",
        "link": "https://handbook.example/salaries",
        "metadata": {"audience": "hr", "team": "people"},
    },
]


def build_plugin() -> SearchPlugin:
    search = LocalTextSearch()
    search.add_documents(HANDBOOK)
    handbook = create_search_function(
        search,
        kind="text_search_results",
        name="search_handbook",
        description="Search the engineering handbook. Returns JSON results with links to cite.",
        # preset: hidden from the model, applied to every call, impossible to widen
        filter=TextSearchFilter().equal_to("audience", "staff"),
        parameters=[
            SearchParameter("query", "Keywords from the user's question."),
            SearchParameter("top", "How many results you need.", type=int),
            SearchParameter(
                "team",
                "Only pages of this team.",
                filter_field="team",
                choices=["platform", "search", "people"],
            ),
        ],
        top=3,
    )
    return create_search_plugin(search, name="handbook", functions=[handbook])


async def run(question: str, plugin: SearchPlugin) -> str:
    from anthropic import AsyncAnthropic

    tools: Any = plugin.to_anthropic_tools()
    messages: list[Any] = [{"role": "user", "content": question}]
    async with AsyncAnthropic() as client:
        for _ in range(5):  # a bound on tool rounds
            reply = await client.messages.create(
                model=os.environ.get("ANTHROPIC_MODEL", "claude-haiku-4-5"),
                max_tokens=1024,
                system="Answer from the handbook; search first and cite the links you used.",
                messages=messages,
                tools=tools,
            )
            if reply.stop_reason != "tool_use":
                return "".join(b.text for b in reply.content if b.type == "text")
            messages.append({"role": "assistant", "content": reply.content})
            results = []
            for block in reply.content:
                if block.type != "tool_use":
                    continue
                print(f"-> {block.name}({json.dumps(block.input)})", file=sys.stderr)
                # never raises for bad arguments or failed searches: Claude gets a short
                # message it can act on (retry, broaden the query, tell the user)
                text = await plugin.invoke(block.name, block.input)  # type: ignore[arg-type]
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": text})
            messages.append({"role": "user", "content": results})
    return "(stopped after 5 tool rounds)"


def main() -> int:
    question = " ".join(sys.argv[1:]) or "How long do we cache search responses?"
    plugin = build_plugin()
    if not os.environ.get("ANTHROPIC_API_KEY"):
        print("ANTHROPIC_API_KEY is not set, so this runs offline.")
        print("With a key, Claude gets this tool:")
        print(json.dumps(plugin.to_anthropic_tools(), indent=2))
        arguments = {"query": "salary bands", "team": "people"}
        print(f"\nA call such as search_handbook({json.dumps(arguments)}) is answered with:")
        print(plugin.invoke_sync("search_handbook", arguments))
        print("(the hidden audience=staff filter keeps HR-only pages out, whatever Claude asks)")
        return 0
    try:
        import anthropic  # noqa: F401
    except ImportError:
        print("This example needs the Anthropic SDK: pip install anthropic", file=sys.stderr)
        return 2
    print(asyncio.run(run(question, plugin)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
