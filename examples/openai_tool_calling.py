"""A full tool-calling loop with the official OpenAI SDK and a textsearch plugin.

    pip install textsearch-sdk openai
    OPENAI_API_KEY=sk-... python examples/openai_tool_calling.py "How should I retry failed calls?"

Without OPENAI_API_KEY it explains what it would do and shows the tool definition and one tool
answer, offline. OPENAI_MODEL picks the model (default gpt-4o-mini).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from textsearch import LocalTextSearch
from textsearch.plugins import SearchPlugin, create_search_plugin

HANDBOOK = [
    {
        "id": "retry",
        "title": "Retry policy",
        "text": "Retry failed calls at most five times with exponential backoff and jitter. "
        "Never retry a 4xx answer other than 429.",
        "link": "https://handbook.example/retry",
    },
    {
        "id": "cache",
        "title": "Caching",
        "text": "Cache search responses for five minutes; never cache errors.",
        "link": "https://handbook.example/cache",
    },
    {
        "id": "oncall",
        "title": "On-call",
        "text": "The on-call engineer answers pages within fifteen minutes.",
        "link": "https://handbook.example/on-call",
    },
]

SYSTEM = (
    "Answer from the handbook. Call the search tool first, then answer briefly and cite the "
    "links of the results you used."
)


def build_plugin() -> SearchPlugin:
    search = LocalTextSearch()
    search.add_documents(HANDBOOK)
    return create_search_plugin(search, name="handbook")


async def run(question: str, plugin: SearchPlugin) -> str:
    from openai import AsyncOpenAI

    tools: Any = plugin.to_openai_tools(strict=True)
    messages: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": question},
    ]
    async with AsyncOpenAI() as client:
        for _ in range(5):  # a bound on tool rounds, in case the model keeps searching
            completion = await client.chat.completions.create(
                model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
                messages=messages,
                tools=tools,
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                if call.type != "function":
                    continue
                print(f"-> {call.function.name}({call.function.arguments})", file=sys.stderr)
                # invoke never raises for bad arguments or failed searches: the model gets a
                # short message it can act on (retry, broaden the query, tell the user).
                result = await plugin.invoke(call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return "(stopped after 5 tool rounds)"


def main() -> int:
    question = " ".join(sys.argv[1:]) or "How should I retry failed calls?"
    plugin = build_plugin()
    if not os.environ.get("OPENAI_API_KEY"):
        print("OPENAI_API_KEY is not set, so this runs offline.")
        print("With a key, the model gets this tool (strict mode):")
        print(json.dumps(plugin.to_openai_tools(strict=True), indent=2))
        arguments = json.dumps({"query": question, "top": 2, "skip": None})
        print(f"\nand a call such as search({arguments}) is answered with:")
        print(plugin.invoke_sync("search", arguments))
        return 0
    try:
        import openai  # noqa: F401
    except ImportError:
        print("This example needs the OpenAI SDK: pip install openai", file=sys.stderr)
        return 2
    print(asyncio.run(run(question, plugin)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
