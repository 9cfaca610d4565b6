"""``textsearch ground "question"``: search and print a ready prompt with numbered sources."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from textsearch.cli._common import EXIT_OK, close, positive
from textsearch.cli._providers import add_search_command, build_provider, search_filter


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``ground`` command to the sub-command parsers."""
    grounding = add_search_command(
        commands,
        "ground",
        help="search and print a ready prompt with numbered sources",
        query_help="the question",
    )
    grounding.add_argument("--site", metavar="DOMAIN", help="only results from this site")
    grounding.add_argument(
        "--template",
        choices=("answer", "answer-dates"),
        default="answer",
        help="ready template: answer with citations, or with citations and dates",
    )
    grounding.add_argument(
        "--full-pages", action="store_true", help="download each result's page and use its text"
    )
    grounding.add_argument(
        "--allow-private",
        action="store_true",
        help="with --full-pages: also fetch private/loopback addresses (trusted links only)",
    )
    grounding.add_argument(
        "--max-result-chars", type=positive, metavar="N", help="most characters per result"
    )
    grounding.add_argument(
        "--max-chars", type=positive, metavar="N", help="most characters of the whole prompt"
    )
    grounding.add_argument(
        "--no-fence", action="store_true", help="do not fence the results as untrusted data"
    )
    grounding.add_argument("--no-references", action="store_true", help="print only the prompt")
    grounding.add_argument(
        "--json", action="store_true", help="print the prompt and sources as JSON"
    )
    grounding.set_defaults(handler=run)
    return grounding


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``textsearch ground``; returns the exit code."""
    from textsearch.grounding import TEMPLATES, Budget, ground_sync

    budget = None
    if args.max_result_chars or args.max_chars:
        budget = Budget(max_result_chars=args.max_result_chars, max_chars=args.max_chars)
    fetch_options = {"allow_private": True} if args.allow_private else None
    search = build_provider(args)
    try:
        grounded = ground_sync(
            search,
            args.query,
            template=TEMPLATES[args.template],
            top=args.top,
            budget=budget,
            fence=not args.no_fence,
            full_pages=args.full_pages,
            fetch_options=fetch_options,
            filter=search_filter(args),
        )
    finally:
        close(search)
    if args.json:
        payload = {
            "query": args.query,
            "prompt": grounded.prompt,
            "references": [
                {"number": s.number, "title": s.title, "link": s.link, "date": s.date}
                for s in grounded.sources
            ],
            "truncated": grounded.truncated,
            "dropped": grounded.dropped,
        }
        if grounded.pages is not None:
            payload["pages"] = [
                {"link": p.link, "ok": p.ok, "error": p.error} for p in grounded.pages
            ]
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    out.write(grounded.prompt + "\n")
    if not args.no_references:
        out.write("\nReferences:\n" + (grounded.references or "(none)") + "\n")
    for page in grounded.pages or ():
        if not page.ok:
            print(f"page not used: {page.link}: {page.error}", file=sys.stderr)
    return EXIT_OK
