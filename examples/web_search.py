"""Search the web with Bing (v7 or a compatible gateway) or Bocha, whichever has a key.

    BOCHA_API_KEY=sk-... python examples/web_search.py "vector database comparison"
    BING_SEARCH_API_KEY=... BING_SEARCH_ENDPOINT=https://gateway.example/v7.0/search \\
        BING_SEARCH_AUTH_HEADER=Authorization python examples/web_search.py "httpx retries"

Without a key it explains what it needs and exits without touching the network.
"""

from __future__ import annotations

import asyncio
import os
import sys

from textsearch import (
    BingTextSearch,
    BochaTextSearch,
    ProviderError,
    ProviderRetiredError,
    SearchTransportError,
    TextSearchFilter,
)
from textsearch.grounding import format_results


def pick_connector() -> BingTextSearch | BochaTextSearch | None:
    if os.environ.get("BOCHA_API_KEY"):
        return BochaTextSearch(
            base_url=os.environ.get("BOCHA_BASE_URL") or "https://api.bochaai.com"
        )
    if os.environ.get("BING_SEARCH_API_KEY"):
        return BingTextSearch(
            endpoint=os.environ.get("BING_SEARCH_ENDPOINT")
            or "https://api.bing.microsoft.com/v7.0/search",
            auth_header=os.environ.get("BING_SEARCH_AUTH_HEADER") or "Ocp-Apim-Subscription-Key",
        )
    return None


async def main(query: str, site: str | None) -> int:
    connector = pick_connector()
    if connector is None:
        print(
            "This example searches the web and needs a key:\n"
            "  BOCHA_API_KEY=sk-...            Bocha Web Search (https://open.bochaai.com)\n"
            "  BING_SEARCH_API_KEY=...         a Bing v7-compatible gateway; the public Bing\n"
            "                                  Search v7 API was retired on 2025-08-11, so\n"
            "                                  also set BING_SEARCH_ENDPOINT (and\n"
            "                                  BING_SEARCH_AUTH_HEADER)\n"
            "Nothing was sent anywhere.",
            file=sys.stderr,
        )
        return 0
    search_filter = TextSearchFilter().equal_to("site", site) if site else None
    async with connector:
        try:
            results = await connector.get_text_search_results(query, top=5, filter=search_filter)
        except ProviderRetiredError as exc:
            print(f"Bing is retired here: {exc}", file=sys.stderr)
            return 1
        except (ProviderError, SearchTransportError) as exc:
            print(f"search failed: {exc}", file=sys.stderr)
            return 1
    print(format_results(results, query=query))
    return 0


if __name__ == "__main__":
    words = [a for a in sys.argv[1:] if not a.startswith("--site=")]
    sites = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--site=")]
    text = " ".join(words) or "httpx retry transport"
    raise SystemExit(asyncio.run(main(text, sites[0] if sites else None)))
