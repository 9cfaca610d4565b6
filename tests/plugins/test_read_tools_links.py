"""read_document and fetch_page against links that differ from an allowed one only in form
(issue #33, 2nd attack): case, percent-encoding, a trailing slash, dot segments, a userinfo
part, a trailing dot, whitespace. None of them reaches what the preset filter keeps out."""

from __future__ import annotations

import json

import pytest

from tests.plugins.test_read_tools import (  # noqa: F401  # fixtures
    PUBLIC_ONLY,
    _resolver,
    local,
    web_port,
)
from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.plugins import create_search_plugin

SECRET_LINKS = [
    "https://DOCS.EXAMPLE/plan",
    "HTTPS://docs.example/plan",
    "https://docs.example/PLAN",
    "https://docs.example/pl%61n",
    "https://docs.example/plan/",
    "https://docs.example/guide/../plan",
    "https://docs.example/./plan",
    "https://docs.example//plan",
    "https://docs.example:443/plan",
    "https://user@docs.example/plan",
    "https://docs.example./plan",
    " https://docs.example/plan",
    "https://docs.example/plan ",
    "https://docs.example/plan?",
    "https://docs.example/plan#",
    "https://docs.example/plan#RETRY-POLICY",
    "https://docs.example/guide#../plan",
    "https://docs.example/guide/..%2Fplan",
    "https://docs.example/plan%00",
    "https://docs.example/plan\n",
    "file:///plan",
    "//docs.example/plan",
    "SEC",
    "sec ",
    "sec#retry-policy",
    "https://docs.example/plan\u200b",
]


@pytest.mark.parametrize("link", SECRET_LINKS, ids=range(len(SECRET_LINKS)))
def test_read_document_never_reads_the_secret_by_another_spelling(
    local: LocalTextSearch,  # noqa: F811
    link: str,
) -> None:
    plugin = create_search_plugin(local, filter=PUBLIC_ONLY, read_tools=True)
    text = plugin.invoke_sync("read_document", {"link": link})
    assert "WALRUS" not in text and "launch" not in text, text


@pytest.mark.anyio
async def test_fetch_page_keeps_to_its_site_by_every_spelling(web_port: int) -> None:  # noqa: F811
    names = {"docs.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]}
    names |= {"docs.example.other.example": ["127.0.0.1"], "docs.example.": ["127.0.0.1"]}
    from textsearch.testing import StaticTextSearch

    plugin = create_search_plugin(
        StaticTextSearch([]),
        filter=TextSearchFilter().equal_to("site", "docs.example"),
        fetch={"allow_private": True, "resolver": _resolver(names), "timeout": 5.0},
    )
    port = web_port
    for url in (
        f"http://docs.example@other.example:{port}/secret.html",
        f"http://other.example:{port}/secret.html#docs.example",
        f"http://other.example:{port}/docs.example/secret.html",
        f"http://docs.example.other.example:{port}/secret.html",
        f"http://other.example:{port}/secret.html?site=docs.example",
        f"http://other.example\\@docs.example:{port}/secret.html",
    ):
        text = await plugin.invoke("fetch_page", {"url": url})
        assert "WALRUS" not in text and "launch" not in text, (url, text)
    # the allowed site by another case is still the allowed site
    page = json.loads(
        await plugin.invoke("fetch_page", {"url": f"http://DOCS.example:{port}/page.html"})
    )
    assert "exponential backoff" in page["text"]
