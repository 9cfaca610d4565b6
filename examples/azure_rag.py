"""Retrieval-augmented generation over an Azure AI Search index.

Set AZURE_SEARCH_ENDPOINT, AZURE_SEARCH_INDEX and AZURE_SEARCH_API_KEY, then:

    python examples/azure_rag.py "how do I configure retries?" [--user u1 --groups g-ops]

It searches the index (with a per-user security filter when --user is given), prints the
grounding text a model would receive, and the citations. Without the variables it explains
what it needs and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from textsearch import AzureAISearchTextSearch, TextSearchError
from textsearch.connectors.azure_ai_search import search_in
from textsearch.grounding import format_results

NEEDED = ("AZURE_SEARCH_ENDPOINT", "AZURE_SEARCH_INDEX", "AZURE_SEARCH_API_KEY")


def explain() -> int:
    missing = [name for name in NEEDED if not os.environ.get(name)]
    print("This example searches a real Azure AI Search index.")
    print("Set these environment variables first: " + ", ".join(missing))
    print('  export AZURE_SEARCH_ENDPOINT="https://<service>.search.windows.net"')
    print('  export AZURE_SEARCH_INDEX="<index>"')
    print('  export AZURE_SEARCH_API_KEY="<query key>"')
    print("Optional: --acl-field acl --user u1 --groups g1,g2 for row-level security.")
    return 0


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question", nargs="?", default="How do I configure retries?")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--semantic", action="store_true", help="use the semantic ranker")
    parser.add_argument("--acl-field", default="acl", help="collection field with allowed ids")
    parser.add_argument("--user", help="id of the user asking (enables the security filter)")
    parser.add_argument("--groups", default="", help="comma-separated group ids of the user")
    args = parser.parse_args(argv)
    if not all(os.environ.get(name) for name in NEEDED):
        return explain()

    principals = [p for p in [args.user, *args.groups.split(",")] if p]
    search = AzureAISearchTextSearch(
        query_type="semantic" if args.semantic else "simple",
        security_filter=(lambda ids: search_in(args.acl_field, ids)) if args.user else None,
    )
    try:
        async with search:
            with search.security_context(principals):
                results = await search.get_text_search_results(
                    args.question, top=args.top, include_total_count=True
                )
    except TextSearchError as exc:
        print(f"search failed: {exc}", file=sys.stderr)
        return 1

    print(format_results(results, query=args.question))
    print(f"\n({results.total_count} matching documents in {search.index_name})")
    print("\nPrompt for the model:\n")
    print(
        "Answer the question using only the sources below; cite them as [n].\n\n"
        + format_results(results, query=args.question)
        + f"\n\nQuestion: {args.question}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
